// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which of a session's refusals by the egress gateway get a journal record
// of their own. Refusals cost a session nothing, so it can send hundreds of
// thousands of them; one record each would run into journald's per-unit
// rate limit, which then drops the records of every session's accepted
// requests too, and those records are the only account
// (core/gateway/gateway_usage.h). So each session gets at most kRefusalBurst
// refusal records per kRefusalWindowUsec; the rest are counted per reason
// and written as one summary record (core/gateway/gateway_log.h) once the window
// they were counted in has ended. Every refusal is in the journal either
// way, one by one or in a summary's count.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace nr::core {

inline constexpr std::uint64_t kRefusalBurst = 20;
inline constexpr std::uint64_t kRefusalWindowUsec = 10'000'000;

// Reasons come from the gateway's own code, a handful of them; the cap
// only keeps the memory bounded should that ever change. A reason beyond
// it, or an empty one, is counted under kOtherRefusalReason.
inline constexpr std::size_t kMaxRefusalReasons = 32;
inline constexpr std::string_view kOtherRefusalReason = "other";

struct RefusalSummary {
    std::uint64_t total = 0;
    // At most kMaxRefusalReasons; std::less<> finds a reason without a copy.
    std::map<std::string, std::uint64_t, std::less<>> by_reason;

    bool operator==(const RefusalSummary&) const = default;
};

// One per session. Times are CLOCK_MONOTONIC microseconds; a time earlier
// than one already seen is taken as the latest seen, so a clock that steps
// back neither opens a window early nor makes a summary due early.
class RefusalTally {
public:
    // True when this refusal gets its own record; false when it is only
    // counted for the next summary.
    bool admit(std::string_view reason, std::uint64_t now_usec);

    // The summary of the refusals counted so far, once the window in which
    // the first of them was counted has ended; the counts start again.
    std::optional<RefusalSummary> due(std::uint64_t now_usec);

    // When due() will next return a summary (for a timer), if anything is
    // counted.
    [[nodiscard]] std::optional<std::uint64_t> due_at() const;

    // The counted refusals whatever the time, when the session is revoked
    // or the gateway stops, so that none is left out of the journal.
    std::optional<RefusalSummary> flush();

private:
    std::uint64_t seen(std::uint64_t now_usec);
    void count(std::string_view reason);

    std::uint64_t latest_usec_ = 0;
    std::optional<std::uint64_t> window_start_usec_;
    std::uint64_t admitted_in_window_ = 0;
    std::uint64_t pending_due_usec_ = 0; // meaningful while pending_.total > 0
    RefusalSummary pending_;
};

} // namespace nr::core
