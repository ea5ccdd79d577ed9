// SPDX-License-Identifier: Apache-2.0
// native-runtime-launch: runs in a session unit, as the session user: its
// ExecStart= on systemd >= 257, else exec'd by native-runtime-claim. It
// takes its spec from the helper over the helper channel it was passed
// (never from argv or the unit environment, both world-readable), prepares the owner's private
// directories, and starts bwrap with the seccomp filter attached; then it
// execs native-runtime-supervise in its place, which stays bwrap's parent
// until the sandbox ends (launcher/supervisor.h). A `network: gateway`
// session first gets its own user and network namespace, and its one
// listener there goes to the egress gateway (sys/net/netns_listener.h).

#include "core/base/error.h"
#include "core/base/exit_codes.h"
#include "core/launch/denial_tally.h"
#include "core/launch/launcher_args.h"
#include "core/launch/sandbox_args.h"
#include "core/launch/spec_delivery.h"
#include "launcher/helper_channel.h"
#include "launcher/host_auth_turn.h"
#include "launcher/launch_steps.h"
#include "launcher/supervisor.h"
#include "sys/base/exec_setup.h"
#include "sys/base/journal_writer.h"
#include "sys/base/launch_channel.h"
#include "sys/base/sealed_memfd.h"
#include "sys/fs/protected_paths.h"
#include "sys/fs/safe_dirs.h"
#include "sys/landlock/landlock_scope.h"
#include "sys/net/netns_listener.h"
#include "sys/seccomp/seccomp_filter.h"
#include "version/version.h"

#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace {

nr::core::LauncherArgs launcher_args(int argc, char** argv)
{
    return nr::core::parse_launcher_args(std::vector<std::string>(argv, argv + argc));
}

// A spec whose port differs from the command line's is refused rather than
// run in a namespace made for another port, or on the host's network.
void check_gateway_port(const nr::core::LauncherArgs& args, const nr::core::LaunchSpec& spec)
{
    if (spec.gateway_port != args.gateway_port) {
        nr::core::fail(nr::core::ErrorKind::LaunchFailed,
                       "the launch spec's gateway port " + std::to_string(spec.gateway_port) +
                           " is not the command line's " + std::to_string(args.gateway_port));
    }
}

// As long as the helper's answer to a listener may take: it registers the
// listener with the gateway before it answers.
constexpr auto kListenerAnswerWait = std::chrono::seconds(30);

// The listener is the session's only way out of its namespace: it goes to
// the gateway through the helper, over the helper channel, and this process
// keeps no copy.
void connect_gateway(const nr::core::LaunchSpec& spec, const nr::sys::PrivateNetwork& network,
                     const nr::sys::UniqueFd& channel)
{
    nr::sys::join_private_network(network);
    const auto listener = nr::sys::listen_on_loopback(spec.gateway_port);
    nr::sys::hand_over_listener(channel.get(), listener.get(), kListenerAnswerWait);
}

// Nothing of the session may hold the channel: closed before bwrap is
// forked (and close-on-exec besides). The helper closes its end on the
// 'D'; the copy systemd passed may keep it open until the unit ends.
void close_channel(nr::sys::UniqueFd& channel)
{
    if (channel.valid()) {
        (void)nr::sys::report_done(channel.get());
    }
    channel.reset();
}

// Reports a serial adapter's wait to the helper, over the channel.
nr::launcher::WaitReporter wait_reporter(const nr::sys::UniqueFd& channel)
{
    const int fd = channel.get();
    return [fd](std::size_t ahead) {
        if (!nr::sys::report_waiting(fd, static_cast<std::uint32_t>(std::min<std::size_t>(ahead, UINT32_MAX)))) {
            std::cerr << "native-runtime-launch: could not report the wait over the helper channel\n";
        }
    };
}

// To the worker (the session's stderr is its fd) and to the journal, where
// journald files it under the session's unit (_SYSTEMD_UNIT=) with the
// unit's NATIVE_RUNTIME_* fields.
void launch_failed(const std::string& message)
{
    std::cerr << "native-runtime-launch: " << message << '\n';
    nr::sys::write_last_log(nr::core::log_record(nr::core::LogEvent::LaunchFailed, "launch failed: " + message));
}

// What bwrap binds from descriptors: the directories the helper checked
// and the protected home paths, with the descriptors kept open until the
// exec.
struct CheckedMounts {
    std::vector<nr::sys::UniqueFd> fds;
    nr::core::MountDescriptors descriptors;
};

CheckedMounts open_checked_mounts(const nr::core::LaunchSpec& spec)
{
    CheckedMounts mounts;
    for (const auto& dir : spec.checked_dirs) {
        mounts.fds.push_back(nr::sys::open_checked_directory(dir));
        mounts.descriptors.read_write[dir.path] = mounts.fds.back().get();
    }
    auto protected_mounts = nr::sys::open_protected_paths(spec.protected_paths);
    nr::sys::add_protected_descriptors(spec.protected_paths, protected_mounts, mounts.descriptors);
    for (auto& mount : protected_mounts) {
        mounts.fds.push_back(std::move(mount.fd));
    }
    return mounts;
}

// Runs in the child run_supervised forks, under the supervised filter:
// execs bwrap with its own filter, its options and the mounts' descriptors.
[[noreturn]] void become_sandbox(const nr::core::LaunchSpec& spec, const nr::core::SeccompPolicy& bwrap_filter,
                                 const CheckedMounts& mounts)
{
    for (const auto& fd : mounts.fds) {
        nr::sys::keep_across_exec(fd.get(), "checked directory or protected path");
    }
    const auto planned = nr::core::bind_from_descriptors(spec.bwrap_argv, mounts.descriptors);
    // After the last word with the helper (its channel is closed by now):
    // nothing the launcher needs lies outside the domain from here on.
    nr::sys::scope_abstract_sockets_and_signals();
    auto filter = nr::sys::export_seccomp_filter(bwrap_filter);
    nr::sys::keep_across_exec(filter.get(), "seccomp program");
    // Options and the agent's environment (credentials included) go to
    // bwrap through a sealed memfd, never through bwrap's own argv or
    // environment, which stay readable as /proc/<pid>/{cmdline,environ}.
    auto args = nr::sys::sealed_memfd("native-runtime-bwrap-args",
                                      nr::core::bwrap_args_data(planned, spec.environment, filter.get()));
    nr::sys::keep_across_exec(args.get(), "bwrap options");
    nr::launcher::exec_sandbox(nr::core::bwrap_exec_argv(planned, args.get()), {});
}

} // namespace

int main(int argc, char** argv)
{
    if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
        std::cout << nr::version::describe("native-runtime-launch") << '\n';
        return 0;
    }
    nr::sys::set_log_identifier("native-runtime-launch");
    // The helper channel is ours from the exec on, and the spec may carry
    // credentials: no other process of this uid may take the channel
    // (pidfd_getfd) or read our memory until exec replaces it. The package
    // installs this file execute-only, which makes the exec itself leave us
    // non-dumpable; this repeats it for any other install.
    prctl(PR_SET_DUMPABLE, 0);
    try {
        const auto command_line = launcher_args(argc, argv);
        auto channel = nr::launcher::take_helper_channel();
        nr::sys::close_fds_above_stderr_except(channel.get());
        // Made by a child that drops the channel and makes itself dumpable
        // (writing a uid_map needs that) before the spec is read; joined
        // only after the last check of a path's owner, since root is
        // unmapped in it.
        std::optional<nr::sys::PrivateNetwork> network;
        if (command_line.gateway_port != 0) {
            network = nr::sys::make_private_network();
        }
        auto spec = nr::sys::receive_launch_spec(channel.get(), nr::core::kLaunchSpecDeadline, 0);
        check_gateway_port(command_line, spec);
        nr::sys::ensure_private_dirs(spec.dirs.base, spec.dirs.relative);
        // Waits here, inside the unit, for a serial adapter's turn.
        auto turn = nr::launcher::take_turn(spec, wait_reporter(channel));
        nr::launcher::check_trusted_binary(spec.bwrap_argv.at(0));
        // The helper checked these directories by walking their path; bind
        // exactly those, from descriptors, not whatever the path names now.
        // bwrap closes each after its mount. The same for protected home
        // paths, which this process creates and checks itself; nothing
        // beneath the home is mounted by name.
        const auto mounts = open_checked_mounts(spec);
        if (network) {
            connect_gateway(spec, *network, channel);
            network.reset();
        }
        close_channel(channel);
        // listen/accept/io_uring are refused by a filter the supervisor
        // answers (and counts, and logs); the rest by bwrap's filter.
        const auto seccomp = nr::core::split_supervised(spec.seccomp);
        // Becomes the supervisor, bwrap's parent: holds the turn, answers
        // the supervised filter, watches the worker's end of stdout.
        nr::launcher::run_supervised(std::move(turn), spec.environment, seccomp.supervised,
                                     [&spec, &seccomp, &mounts] { become_sandbox(spec, seccomp.bwrap, mounts); });
    } catch (const nr::core::Error& e) {
        launch_failed(std::string(nr::core::error_name(e.kind())) + ": " + e.what());
    } catch (const std::exception& e) {
        launch_failed(std::string("LaunchFailed: ") + e.what());
    }
    return nr::core::kExitLaunchFailed;
}
