// SPDX-License-Identifier: Apache-2.0
// native-runtime-claim: ExecStart= of a session unit on systemd < 257,
// which cannot pass a transient unit a descriptor. It asks the helper for
// the unit's helper channel (Launcher.Claim, which the helper authorises by
// this process's unit and UID) and execs native-runtime-launch with it,
// passed the way systemd >= 257 passes it: fd 3, LISTEN_PID, LISTEN_FDS,
// LISTEN_FDNAMES. It never reads the spec; the helper has sent it on the
// channel for the launcher. So the launcher has one way to get its spec
// and to talk to the helper on every systemd, and links no bus client;
// this program is the only one in a session unit that does.

#include "core/base/error.h"
#include "core/base/exit_codes.h"
#include "core/journal/log_event.h"
#include "core/launch/launcher_args.h"
#include "core/launch/spec_delivery.h"
#include "launcher/helper_channel.h"
#include "sys/base/exec_setup.h"
#include "sys/base/journal_writer.h"
#include "sys/base/unique_fd.h"
#include "sys/bus/helper_proxy.h"
#include "version/version.h"

#include <sdbus-c++/sdbus-c++.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <string>
#include <sys/prctl.h>
#include <unistd.h>
#include <vector>

#ifndef NR_LAUNCHER_PATH
#error "NR_LAUNCHER_PATH must be defined by the build"
#endif

namespace {

using nr::core::ErrorKind;
using nr::core::fail;

// Where systemd would put the first passed descriptor (SD_LISTEN_FDS_START).
constexpr int kFirstPassedFd = 3;

nr::sys::UniqueFd claim_channel(const std::string& token)
{
    try {
        auto connection = sdbus::createSystemBusConnection();
        nr::sys::LauncherProxy proxy(*connection);
        auto channel = proxy.Claim(token);
        return nr::sys::UniqueFd(channel.release());
    } catch (const sdbus::Error& e) {
        fail(ErrorKind::LaunchFailed, "claiming the helper channel failed: " + e.getName() + ": " + e.getMessage());
    }
}

void set_variable(const char* name, const std::string& value)
{
    if (::setenv(name, value.c_str(), 1) != 0) { // NOLINT(concurrency-mt-unsafe): single-threaded here
        fail(ErrorKind::LaunchFailed, std::string("setenv ") + name + ": " + std::strerror(errno));
    }
}

// The channel at fd 3 and nothing else above stderr, announced for this
// process (the launcher keeps its PID across the exec).
void pass_as_systemd_would(nr::sys::UniqueFd channel)
{
    if (channel.get() == kFirstPassedFd) {
        if (::fcntl(kFirstPassedFd, F_SETFD, 0) != 0) {
            fail(ErrorKind::LaunchFailed, std::string("fcntl: ") + std::strerror(errno));
        }
        (void)channel.release();
    } else if (::dup2(channel.get(), kFirstPassedFd) != kFirstPassedFd) { // dup2 leaves the copy inheritable
        fail(ErrorKind::LaunchFailed, std::string("dup2: ") + std::strerror(errno));
    }
    channel.reset();
    nr::sys::close_fds_above_stderr_except(kFirstPassedFd);
    set_variable("LISTEN_PID", std::to_string(::getpid()));
    set_variable("LISTEN_FDS", "1");
    set_variable("LISTEN_FDNAMES", nr::core::kHelperChannelName);
}

[[noreturn]] void exec_launcher(const nr::core::LauncherArgs& args)
{
    const auto argv = nr::core::launcher_argv(NR_LAUNCHER_PATH, args);
    const auto c_argv = nr::sys::exec_vector(argv);
    ::execv(c_argv.front(), c_argv.data());
    fail(ErrorKind::LaunchFailed, "exec " + argv.front() + ": " + std::strerror(errno));
}

void launch_failed(const std::string& message)
{
    std::cerr << "native-runtime-claim: " << message << '\n';
    nr::sys::write_last_log(nr::core::log_record(nr::core::LogEvent::LaunchFailed, "launch failed: " + message));
}

} // namespace

int main(int argc, char** argv)
{
    if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
        std::cout << nr::version::describe("native-runtime-claim") << '\n';
        return 0;
    }
    nr::sys::set_log_identifier("native-runtime-claim");
    try {
        const auto args = nr::core::parse_launcher_args(std::vector<std::string>(argv, argv + argc));
        nr::launcher::refuse_passed_descriptors();
        // The channel soon holds the spec: no other process of this UID
        // may take it from us (pidfd_getfd, ptrace) before the exec.
        prctl(PR_SET_DUMPABLE, 0);
        pass_as_systemd_would(claim_channel(args.claim_token));
        exec_launcher(args);
    } catch (const nr::core::Error& e) {
        launch_failed(std::string(nr::core::error_name(e.kind())) + ": " + e.what());
    } catch (const std::exception& e) {
        launch_failed(std::string("LaunchFailed: ") + e.what());
    }
    return nr::core::kExitLaunchFailed;
}
