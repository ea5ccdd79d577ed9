// SPDX-License-Identifier: Apache-2.0
#include "supervise/supervision.h"

#include "core/base/error.h"
#include "core/base/exit_codes.h"
#include "core/journal/journal_fields.h"
#include "core/launch/denial_tally.h"
#include "sys/base/admission_turn.h"
#include "sys/base/journal_writer.h"
#include "sys/base/notify_responder.h"
#include "sys/base/orphan_reaping.h"
#include "sys/base/output_watch.h"

#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace nr::supervise {

namespace {

// At most this many denial records per interval per session; the summary
// at the end has every count (journald's own per-unit rate limit is a
// second bound).
constexpr std::size_t kDenialBurst = 5;
constexpr auto kDenialInterval = std::chrono::seconds(30);

// What the worker reads on the session's stderr. No iostreams here: their
// locale set-up would cost this long-lived process memory of its own.
void say(std::string_view message)
{
    std::string line = "native-runtime-launch: ";
    line.append(message).push_back('\n');
    std::size_t written = 0;
    while (written < line.size()) {
        const auto n = write(STDERR_FILENO, line.data() + written, line.size() - written);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return; // the worker may have closed it: nothing more to do
        }
        written += static_cast<std::size_t>(n);
    }
}

[[noreturn]] void end_like(int status)
{
    sys::kill_adopted_orphans();
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

[[noreturn]] void kill_child_and_fail(pid_t child, const std::string& message)
{
    kill(child, SIGKILL);
    while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
    fail_session(message);
}

// Only the descriptors the launcher named stay open (the launcher's others
// are close-on-exec already; this also covers any a library left behind).
void close_all_but(const std::vector<int>& kept)
{
    unsigned first = STDERR_FILENO + 1;
    for (const int fd : kept) {
        const auto until = static_cast<unsigned>(fd);
        if (until > first && syscall(SYS_close_range, first, until - 1, 0U) != 0) {
            core::fail(core::ErrorKind::LaunchFailed, std::string("close_range: ") + std::strerror(errno));
        }
        first = until + 1;
    }
    if (syscall(SYS_close_range, first, UINT_MAX, 0U) != 0) {
        core::fail(core::ErrorKind::LaunchFailed, std::string("close_range: ") + std::strerror(errno));
    }
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
// sys/base/output_watch.h and the stdio-host contract in docs/adapters.md).
sys::ChildEnd serve_until_exit(const core::SupervisorArgs& args)
{
    std::optional<sys::NotifyResponder> responder;
    try {
        if (args.listener_fd) {
            responder.emplace(*args.listener_fd, args.calls);
        }
    } catch (const core::Error& e) {
        kill_child_and_fail(args.child_pid, std::string(core::error_name(e.kind())) + ": " + e.what());
    }
    core::DenialTally tally(kDenialBurst, kDenialInterval);
    sys::ChildEnd end;
    try {
        end = sys::wait_child_or_reader_gone(args.child_pid, STDOUT_FILENO, args.listener_fd.value_or(-1), [&] {
            if (responder) {
                answer(*responder, tally);
            }
        });
    } catch (const core::Error& e) {
        say(std::string(core::error_name(e.kind())) + ": " + e.what());
        end.wait_status = core::kExitLaunchFailed << 8; // as if exited with 125
    }
    // The supervisor's last record before it exits with the session.
    if (tally.total() != 0) {
        sys::write_last_log(core::denial_summary_record(tally));
    }
    return end;
}

} // namespace

void fail_session(std::string_view message)
{
    sys::kill_adopted_orphans();
    say(message);
    sys::write_last_log(core::log_record(core::LogEvent::LaunchFailed, "launch failed: " + std::string(message)));
    _exit(core::kExitLaunchFailed);
}

void supervise(const core::SupervisorArgs& args)
{
    std::optional<sys::HeldTurn> turn;
    try {
        close_all_but(core::inherited_fds(args));
        if (args.turn) {
            turn.emplace(sys::UniqueFd(args.turn->dir_fd), sys::UniqueFd(args.turn->ticket_fd), args.turn->number);
        }
    } catch (const core::Error& e) {
        kill_child_and_fail(args.child_pid, std::string(core::error_name(e.kind())) + ": " + e.what());
    }
    const auto end = serve_until_exit(args);
    turn.reset(); // removes the ticket file; the lock goes with it
    if (end.reader_gone) {
        // The worker may have closed stderr too: a failed write is fine.
        (void)std::signal(SIGPIPE, SIG_IGN);
        say("the worker stopped reading the session's output; sandbox stopped");
        end_like(SIGPIPE); // a wait status "killed by SIGPIPE"
    }
    end_like(end.wait_status);
}

} // namespace nr::supervise
