// SPDX-License-Identifier: Apache-2.0
#include "core/launch/denial_tally.h"

#include "core/journal/journal_fields.h"

#include <algorithm>

namespace nr::core {

const std::vector<std::string>& supervised_syscalls()
{
    // Calls bwrap never makes while it sets the sandbox up (it execs the
    // agent without listening or using io_uring), so a filter loaded before
    // bwrap may refuse them.
    static const std::vector<std::string> names{"listen",         "accept",         "accept4",
                                                "io_uring_setup", "io_uring_enter", "io_uring_register"};
    return names;
}

SplitSeccomp split_supervised(const SeccompPolicy& policy)
{
    SplitSeccomp out;
    out.bwrap.kill_foreign_abis = policy.kill_foreign_abis;
    const auto& names = supervised_syscalls();
    for (const auto& rule : policy.denied) {
        const bool supervised = !rule.when && std::find(names.begin(), names.end(), rule.name) != names.end();
        (supervised ? out.supervised : out.bwrap.denied).push_back(rule);
    }
    return out;
}

DenialTally::DenialTally(std::size_t burst, Clock::duration interval) : burst_(burst), interval_(interval) {}

bool DenialTally::note(const std::string& syscall, Clock::time_point now)
{
    ++counts_[syscall];
    ++total_;
    if (in_window_ == 0 || now - window_start_ >= interval_) {
        window_start_ = now;
        in_window_ = 0;
    }
    if (in_window_ < burst_) {
        ++in_window_;
        return true;
    }
    ++suppressed_since_last_;
    return false;
}

std::string DenialTally::summary() const
{
    std::string out;
    for (const auto& [name, count] : counts_) {
        out += (out.empty() ? "" : " ") + name + "=" + std::to_string(count);
    }
    return out;
}

LogRecord denial_record(const std::string& syscall, int errno_value, const DenialTally& tally)
{
    const auto it = tally.counts().find(syscall);
    const auto count = it == tally.counts().end() ? 0 : it->second;
    std::string message = "seccomp refused " + syscall + "() in the sandbox (errno " + std::to_string(errno_value) +
                          "), " + std::to_string(count) + " time(s) so far";
    if (tally.suppressed_since_last() != 0) {
        message += "; " + std::to_string(tally.suppressed_since_last()) + " earlier refusal(s) not logged one by one";
    }
    auto record = log_record(LogEvent::SyscallsDenied, message);
    record.fields.emplace_back(kFieldSyscall, syscall);
    record.fields.emplace_back(kFieldErrno, std::to_string(errno_value));
    record.fields.emplace_back(kFieldDeniedCount, std::to_string(count));
    record.fields.emplace_back(kFieldDeniedTotal, std::to_string(tally.total()));
    record.fields.emplace_back(kFieldSuppressed, std::to_string(tally.suppressed_since_last()));
    return record;
}

LogRecord denial_summary_record(const DenialTally& tally)
{
    auto record =
        log_record(LogEvent::SyscallsDenied, "the sandbox ended; seccomp refused " + std::to_string(tally.total()) +
                                                 " call(s) in all: " + tally.summary());
    record.fields.emplace_back(kFieldDenials, tally.summary());
    record.fields.emplace_back(kFieldDeniedTotal, std::to_string(tally.total()));
    return record;
}

} // namespace nr::core
