// SPDX-License-Identifier: Apache-2.0
#pragma once
// Making the seccomp program's refusals visible per session without
// letting a session flood the journal.
//
// bwrap loads the session's filter with prctl(PR_SET_SECCOMP), which takes
// no flags, so its errno actions can never be logged by the kernel
// (SECCOMP_FILTER_FLAG_LOG); and kernel audit records carry a host PID, not
// the unit. So the calls an agent is most likely to try and that bwrap
// itself never makes (listen, accept, accept4, io_uring_*) are enforced by a
// second filter that the launcher loads before bwrap, whose action is
// SECCOMP_RET_USER_NOTIF: the launcher, staying outside the sandbox as its
// parent, answers each with the same errno and counts it. Everything else
// stays in bwrap's filter. If the launcher were gone, the kernel would fail
// those calls with ENOSYS: still refused.

#include "core/journal/log_event.h"
#include "core/launch/seccomp_types.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace nr::core {

struct SplitSeccomp {
    SeccompPolicy bwrap;                 // loaded by bwrap, as before
    std::vector<SyscallRule> supervised; // loaded by the launcher, answered by it
};

// Moves the whole-call rules for the supervised names out of `policy`;
// rules with an argument match and all other names stay with bwrap.
SplitSeccomp split_supervised(const SeccompPolicy& policy);

// The names split_supervised moves (tests and docs).
const std::vector<std::string>& supervised_syscalls();

// Counts denials per syscall and decides which get a record of their own:
// at most `burst` per `interval`; the rest are only counted, and the next
// record that gets through says how many were left out. The summary at the
// end has every count.
class DenialTally {
public:
    using Clock = std::chrono::steady_clock;

    DenialTally(std::size_t burst, Clock::duration interval);

    // True when this denial should be logged now.
    bool note(const std::string& syscall, Clock::time_point now);

    // Denials not logged since the last logged one.
    [[nodiscard]] std::uint64_t suppressed_since_last() const { return suppressed_since_last_; }
    void mark_logged() { suppressed_since_last_ = 0; }

    [[nodiscard]] const std::map<std::string, std::uint64_t>& counts() const { return counts_; }
    [[nodiscard]] std::uint64_t total() const { return total_; }

    // "accept4=1 listen=3"
    [[nodiscard]] std::string summary() const;

private:
    std::size_t burst_;
    Clock::duration interval_;
    Clock::time_point window_start_{};
    std::size_t in_window_ = 0;
    std::uint64_t suppressed_since_last_ = 0;
    std::uint64_t total_ = 0;
    std::map<std::string, std::uint64_t> counts_;
};

// A denial that gets its own record (notice): which call, its errno, the
// counts so far, and how many were left out before it.
LogRecord denial_record(const std::string& syscall, int errno_value, const DenialTally& tally);

// The session's full counts, written once when its sandbox has exited.
LogRecord denial_summary_record(const DenialTally& tally);

} // namespace nr::core
