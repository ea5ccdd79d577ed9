// SPDX-License-Identifier: Apache-2.0
#include "launcher/helper_channel.h"

#include "core/base/error.h"
#include "core/launch/passed_descriptors.h"
#include "core/launch/spec_delivery.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace nr::launcher {

namespace {

std::optional<std::string> take_variable(const char* name)
{
    const char* value = std::getenv(name); // NOLINT(concurrency-mt-unsafe): single-threaded at this point
    std::optional<std::string> out;
    if (value != nullptr) {
        out = value;
    }
    ::unsetenv(name);
    return out;
}

core::PassedDescriptors take_passed()
{
    core::ListenEnvironment env;
    env.pid = take_variable("LISTEN_PID");
    env.fds = take_variable("LISTEN_FDS");
    env.names = take_variable("LISTEN_FDNAMES");
    return core::passed_descriptors(env, ::getpid());
}

} // namespace

sys::UniqueFd take_helper_channel()
{
    const auto passed = take_passed();
    const int fd = core::passed_descriptor(passed, core::kHelperChannelName);
    if (passed.size() != 1) {
        core::fail(core::ErrorKind::LaunchFailed, "systemd passed " + std::to_string(passed.size()) +
                                                      " descriptors; the launcher takes only " +
                                                      core::kHelperChannelName);
    }
    if (::fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        core::fail(core::ErrorKind::LaunchFailed, std::string("the helper channel is not an open descriptor"));
    }
    return sys::UniqueFd(fd);
}

void refuse_passed_descriptors()
{
    const auto passed = take_passed();
    if (!passed.empty()) {
        core::fail(core::ErrorKind::LaunchFailed,
                   "systemd passed " + std::to_string(passed.size()) +
                       " descriptors to native-runtime-claim, which takes none: it gets the helper channel from "
                       "Launcher.Claim");
    }
}

} // namespace nr::launcher
