#include "launcher/supervisor.h"

#include "core/cli_exit.h"
#include "core/denial_tally.h"
#include "core/error.h"
#include "core/journal_fields.h"
#include "sys/journal_writer.h"
#include "sys/output_watch.h"
#include "sys/seccomp_notify.h"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>

namespace nr::launcher {

namespace {

using core::ErrorKind;
using core::fail;

// At most this many denial records per interval per session; the summary
// at the end has every count (journald's own per-unit rate limit is a
// second bound).
constexpr std::size_t kDenialBurst = 5;
constexpr auto kDenialInterval = std::chrono::seconds(30);

// The signals systemd uses to stop a unit. While the sandbox runs, the
// supervisor defers them so it outlives bwrap: it never releases a turn or
// stops answering while the session's processes still exist.
sigset_t stop_signals()
{
    sigset_t set;
    sigemptyset(&set);
    for (const int sig : {SIGTERM, SIGINT, SIGHUP}) {
        sigaddset(&set, sig);
    }
    return set;
}

[[noreturn]] void end_like(int status)
{
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        (void)std::signal(sig, SIG_DFL);
        sigset_t only;
        sigemptyset(&only);
        sigaddset(&only, sig);
        sigprocmask(SIG_UNBLOCK, &only, nullptr);
        (void)raise(sig);
        _exit(core::kExitSignalBase + sig); // a signal whose default is not to die
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : core::kExitLaunchFailed);
}

[[noreturn]] void child_failed(const std::string& message)
{
    std::cerr << "native-runtime-launch: " << message << '\n';
    sys::write_log(core::log_record(core::LogEvent::LaunchFailed, "launch failed: " + message));
    _exit(core::kExitLaunchFailed);
}

void answer(sys::NotifyResponder& responder, core::DenialTally& tally)
{
    const auto call = responder.answer_one();
    if (!call) {
        return;
    }
    if (tally.note(call->syscall, core::DenialTally::Clock::now())) {
        auto record = core::denial_record(call->syscall, call->errno_value, tally);
        record.fields.emplace_back(core::kFieldDeniedPid, std::to_string(call->pid));
        sys::write_log(record);
        tally.mark_logged();
    }
}

// Answers the listener until the child has exited, or kills the child when
// the worker stops reading the session's stdout (stream disposal: see
// sys/output_watch.h and the stdio-host contract in docs/adapters.md).
sys::ChildEnd serve_until_exit(pid_t child, int listener, const std::vector<core::SyscallRule>& supervised)
{
    sys::NotifyResponder responder(listener, supervised);
    core::DenialTally tally(kDenialBurst, kDenialInterval);
    sys::ChildEnd end;
    try {
        end = sys::wait_child_or_reader_gone(child, STDOUT_FILENO, listener, [&] { answer(responder, tally); });
    } catch (const core::Error& e) {
        std::cerr << "native-runtime-launch: " << core::error_name(e.kind()) << ": " << e.what() << '\n';
        end.wait_status = core::kExitLaunchFailed << 8; // as if exited with 125
    }
    if (tally.total() != 0) {
        sys::write_log(core::denial_summary_record(tally));
    }
    return end;
}

} // namespace

void run_supervised(std::optional<sys::AdmissionTicket> turn, std::vector<std::string>& secrets,
                    const std::vector<core::SyscallRule>& supervised, const std::function<void()>& become_sandbox)
{
    std::array<int, 2> channel{-1, -1};
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel.data()) < 0) {
        fail(ErrorKind::LaunchFailed, std::string("socketpair: ") + std::strerror(errno));
    }
    sys::UniqueFd ours(channel[0]);
    sys::UniqueFd theirs(channel[1]);
    const auto deferred = stop_signals();
    sigset_t original;
    sigprocmask(SIG_BLOCK, &deferred, &original);
    const pid_t parent = getpid();
    const pid_t child = fork();
    if (child < 0) {
        fail(ErrorKind::LaunchFailed, std::string("fork: ") + std::strerror(errno));
    }
    if (child == 0) {
        try {
            // bwrap must not outlive its supervisor.
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) {
                _exit(core::kExitLaunchFailed);
            }
            sigprocmask(SIG_SETMASK, &original, nullptr);
            ours.reset();
            {
                // Loaded before bwrap, so bwrap and everything it starts
                // inherit it; the listener never reaches the sandbox.
                auto listener = sys::load_notify_filter(supervised);
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
    theirs.reset();
    // The credentials went to the child; this process has no use for them.
    for (auto& secret : secrets) {
        std::fill(secret.begin(), secret.end(), '\0');
    }
    secrets.clear();
    // No listener means the child failed before loading the filter (it
    // logs why and exits 125): nothing to answer, only its end to wait for.
    const auto listener = sys::receive_descriptor(ours.get());
    ours.reset();
    const auto end = serve_until_exit(child, listener.get(), supervised);
    {
        const auto released = std::move(turn); // removes the ticket file; the lock goes with it
    }
    if (end.reader_gone) {
        // The worker may have closed stderr too: a failed write is fine.
        (void)std::signal(SIGPIPE, SIG_IGN);
        std::cerr << "native-runtime-launch: the worker stopped reading the session's output; sandbox stopped\n";
        end_like(SIGPIPE); // a wait status "killed by SIGPIPE"
    }
    end_like(end.wait_status);
}

} // namespace nr::launcher
