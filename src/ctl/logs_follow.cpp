// SPDX-License-Identifier: Apache-2.0
#include "ctl/logs_follow.h"

#include "ctl/child_process.h"
#include "sys/journal/journal_reader.h"

#include <poll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <system_error>

namespace nr::ctl {

namespace {

constexpr std::size_t kFollowDefaultLines = 10;
constexpr int kOutputClosed = -1;
constexpr int kJournalChanged = 0;

[[noreturn]] void fail_errno(const char* what)
{
    throw std::system_error(errno, std::generic_category(), what);
}

// The signals that end following arrive on a descriptor instead, so that
// the cursor file is removed before this process ends by them.
class StopSignals {
public:
    StopSignals()
    {
        sigemptyset(&set_);
        for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
            sigaddset(&set_, sig);
        }
        if (::sigprocmask(SIG_BLOCK, &set_, &old_) != 0) {
            fail_errno("sigprocmask");
        }
        fd_ = ::signalfd(-1, &set_, SFD_CLOEXEC);
        if (fd_ < 0) {
            const int error = errno;
            ::sigprocmask(SIG_SETMASK, &old_, nullptr);
            throw std::system_error(error, std::generic_category(), "signalfd");
        }
    }
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;
    StopSignals(StopSignals&&) = delete;
    StopSignals& operator=(StopSignals&&) = delete;
    ~StopSignals()
    {
        ::close(fd_);
        ::sigprocmask(SIG_SETMASK, &old_, nullptr);
    }

    [[nodiscard]] int fd() const { return fd_; }
    // What journalctl starts with: none of these blocked.
    [[nodiscard]] const sigset_t& unblocked() const { return old_; }

    int take() const
    {
        signalfd_siginfo info{};
        if (::read(fd_, &info, sizeof info) != static_cast<ssize_t>(sizeof info)) {
            fail_errno("reading a signal");
        }
        return static_cast<int>(info.ssi_signo);
    }

private:
    sigset_t set_{};
    sigset_t old_{};
    int fd_ = -1;
};

// journalctl's --cursor-file, in a directory only this user can enter,
// removed on return.
class CursorFile {
public:
    CursorFile()
    {
        const char* tmp = std::getenv("TMPDIR"); // NOLINT(concurrency-mt-unsafe): single-threaded
        dir_ = std::string(tmp != nullptr && *tmp == '/' ? tmp : "/tmp") + "/native-runtimectl-logs.XXXXXX";
        if (::mkdtemp(dir_.data()) == nullptr) {
            fail_errno("creating the cursor directory");
        }
        path_ = dir_ + "/cursor";
    }
    CursorFile(const CursorFile&) = delete;
    CursorFile& operator=(const CursorFile&) = delete;
    CursorFile(CursorFile&&) = delete;
    CursorFile& operator=(CursorFile&&) = delete;
    ~CursorFile()
    {
        ::unlink(path_.c_str());
        ::rmdir(dir_.c_str());
    }

    [[nodiscard]] const std::string& path() const { return path_; }

    // Whether journalctl has printed a record yet.
    [[nodiscard]] bool written() const
    {
        struct stat st {};
        return ::stat(path_.c_str(), &st) == 0 && st.st_size > 0;
    }

private:
    std::string dir_;
    std::string path_;
};

// Blocks until the journal changes (kJournalChanged), a stop signal comes
// (its number) or standard output is closed (kOutputClosed).
int wait_for_change(sys::JournalWatch& watch, const StopSignals& signals)
{
    for (;;) {
        // No events asked of stdout: poll() still reports its hangup or error.
        std::array<pollfd, 3> fds{{{watch.fd(), watch.events(), 0}, {signals.fd(), POLLIN, 0}, {STDOUT_FILENO, 0, 0}}};
        if (::poll(fds.data(), fds.size(), watch.timeout_ms()) < 0) {
            if (errno == EINTR) {
                continue;
            }
            fail_errno("poll");
        }
        if ((fds[1].revents & POLLIN) != 0) {
            return signals.take();
        }
        if ((fds[2].revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
            return kOutputClosed;
        }
        if (watch.changed()) {
            return kJournalChanged;
        }
    }
}

// Returns the signal that ended following, or kOutputClosed.
int follow(core::JournalctlQuery query, const StopSignals& signals)
{
    const CursorFile cursor;
    query.cursor_file = cursor.path();
    query.no_pager = true; // a pager per run would be a new screen per record
    if (!query.lines) {
        query.lines = kFollowDefaultLines;
    }
    // Before the first run, so that a record written during it wakes us.
    sys::JournalWatch watch;
    for (;;) {
        const int status = run_and_wait(core::journalctl_argv(query), false, &signals.unblocked());
        if (WIFSIGNALED(status)) {
            return WTERMSIG(status);
        }
        // journalctl 252 exits 1 when nothing matched and it had no cursor to
        // write; with a cursor written, a failure is a failure.
        if (WEXITSTATUS(status) != 0 && cursor.written()) {
            throw std::system_error(EIO, std::generic_category(), "journalctl failed while following");
        }
        // From here on: what follows the cursor or, with none yet, every match
        // (none matched before, so each is new).
        query.lines.reset();
        if (const int woken = wait_for_change(watch, signals); woken != kJournalChanged) {
            return woken;
        }
    }
}

} // namespace

int follow_logs(core::JournalctlQuery query)
{
    int ended_by = kOutputClosed;
    {
        const StopSignals signals;
        ended_by = follow(std::move(query), signals);
    }
    if (ended_by == kOutputClosed) {
        return 0;
    }
    // End as an interrupted `journalctl -f` does: by the signal itself.
    (void)std::signal(ended_by, SIG_DFL);
    (void)std::raise(ended_by);
    return 128 + ended_by;
}

} // namespace nr::ctl
