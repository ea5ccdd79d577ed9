// SPDX-License-Identifier: Apache-2.0
#include "launcher/supervisor.h"

#include "core/base/error.h"
#include "core/base/exit_codes.h"
#include "core/launch/supervisor_args.h"
#include "sys/base/exec_setup.h"
#include "sys/base/fd_passing.h"
#include "sys/base/journal_writer.h"
#include "sys/base/orphan_reaping.h"
#include "sys/base/sealed_memfd.h"
#include "sys/seccomp/seccomp_notify.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>

#ifndef NR_SUPERVISOR_PATH
#error "NR_SUPERVISOR_PATH must be defined by the build"
#endif

extern char** environ; // NOLINT(readability-redundant-declaration): POSIX leaves it undeclared in C++

namespace nr::launcher {

namespace {

using core::ErrorKind;
using core::fail;

// The signals systemd uses to stop a unit. They are blocked before the
// fork, and the supervisor inherits the mask across exec (with anything
// pending): it outlives bwrap, and never releases a turn or stops answering
// while the session's processes still exist.
sigset_t stop_signals()
{
    sigset_t set;
    sigemptyset(&set);
    for (const int sig : {SIGTERM, SIGINT, SIGHUP}) {
        sigaddset(&set, sig);
    }
    return set;
}

void report_failure(const std::string& message)
{
    std::cerr << "native-runtime-launch: " << message << '\n';
    sys::write_last_log(core::log_record(core::LogEvent::LaunchFailed, "launch failed: " + message));
}

[[noreturn]] void child_failed(const std::string& message)
{
    report_failure(message);
    _exit(core::kExitLaunchFailed);
}

// Becomes the supervisor. The descriptors it names are made to survive the
// exec; everything else the launcher holds is close-on-exec. The launcher's
// environment is the unit's (world-readable, never the agent's).
[[noreturn]] void exec_supervisor(pid_t child, const sys::UniqueFd& listener,
                                  const std::optional<sys::AdmissionTicket>& turn,
                                  const std::vector<core::SupervisedCall>& calls)
{
    core::SupervisorArgs args;
    args.child_pid = child;
    if (listener.valid()) {
        args.listener_fd = listener.get();
        sys::keep_across_exec(listener.get(), "seccomp listener");
    }
    if (turn) {
        const auto& held = turn->held();
        args.turn = core::HeldTurnFds{held.dir(), held.ticket(), held.number()};
        sys::keep_across_exec(held.dir(), "admission queue");
        sys::keep_across_exec(held.ticket(), "admission ticket");
    }
    args.calls = calls;
    std::vector<std::string> argv{NR_SUPERVISOR_PATH};
    for (auto& word : core::encode_supervisor_args(args)) {
        argv.push_back(std::move(word));
    }
    const auto c_argv = sys::exec_vector(argv);
    execve(c_argv.front(), c_argv.data(), environ);
    fail(ErrorKind::LaunchFailed, "exec " + argv.front() + ": " + std::strerror(errno));
}

// The child's side of the fork: it loads the supervised filter, sends the
// filter's listener to the parent and becomes bwrap.
[[noreturn]] void run_child(pid_t parent, const sigset_t& original, sys::UniqueFd& ours, sys::UniqueFd& theirs,
                            const std::vector<core::SupervisedCall>& calls, const std::function<void()>& become_sandbox)
{
    try {
        // bwrap must not outlive its supervisor. The death signal follows
        // the thread that forked; that thread is the one that execs the
        // supervisor (the launcher has no other), so it stays armed for
        // the supervisor's lifetime, exec included.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) {
            _exit(core::kExitLaunchFailed);
        }
        sigprocmask(SIG_SETMASK, &original, nullptr);
        ours.reset();
        {
            // Loaded before bwrap, so bwrap and everything it starts
            // inherit it; the listener never reaches the sandbox.
            auto listener = sys::load_notify_filter(calls);
            sys::send_descriptor(theirs.get(), listener.get());
        }
        theirs.reset();
        become_sandbox();
    } catch (const core::Error& e) {
        child_failed(std::string(core::error_name(e.kind())) + ": " + e.what());
    } catch (const std::exception& e) {
        child_failed(std::string("LaunchFailed: ") + e.what());
    }
    _exit(core::kExitLaunchFailed);
}

} // namespace

void run_supervised(std::optional<sys::AdmissionTicket> turn, std::vector<std::string>& secrets,
                    const std::vector<core::SyscallRule>& supervised, const std::function<void()>& become_sandbox)
{
    // Resolved once, before the fork: the child's filter and the
    // supervisor's answers use the same numbers.
    const auto calls = sys::supervised_calls(supervised);
    std::array<int, 2> channel{-1, -1};
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel.data()) < 0) {
        fail(ErrorKind::LaunchFailed, std::string("socketpair: ") + std::strerror(errno));
    }
    sys::UniqueFd ours(channel[0]);
    sys::UniqueFd theirs(channel[1]);
    // Before the fork: whatever bwrap leaves behind when it dies early is
    // this process's (and the supervisor's) to kill (sys/base/orphan_reaping.h).
    sys::adopt_orphaned_descendants();
    const auto deferred = stop_signals();
    sigset_t original;
    sigprocmask(SIG_BLOCK, &deferred, &original);
    const pid_t parent = getpid();
    const pid_t child = fork();
    if (child < 0) {
        fail(ErrorKind::LaunchFailed, std::string("fork: ") + std::strerror(errno));
    }
    if (child == 0) {
        run_child(parent, original, ours, theirs, calls, become_sandbox);
    }
    theirs.reset();
    // The credentials went to the child; this process has no use for them
    // (and the exec below drops its memory altogether).
    for (auto& secret : secrets) {
        std::fill(secret.begin(), secret.end(), '\0');
    }
    secrets.clear();
    // No listener means the child failed before loading the filter (it
    // logs why and exits 125): nothing to answer, only its end to wait for.
    const auto listener = sys::receive_descriptor(ours.get());
    ours.reset();
    try {
        exec_supervisor(child, listener, turn, calls);
    } catch (const std::exception& e) {
        // Fail closed: without its supervisor the sandbox would run with no
        // one to hold its turn or notice a worker that went away.
        kill(child, SIGKILL);
        while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
        }
        sys::kill_adopted_orphans();
        turn.reset(); // removes the ticket file; the lock goes with it
        report_failure(std::string("LaunchFailed: cannot start the session's supervisor: ") + e.what());
    }
    _exit(core::kExitLaunchFailed);
}

} // namespace nr::launcher
