// SPDX-License-Identifier: Apache-2.0
#include "core/gateway/refusal_tally.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace nr::core {

std::uint64_t RefusalTally::seen(std::uint64_t now_usec)
{
    latest_usec_ = std::max(latest_usec_, now_usec);
    return latest_usec_;
}

void RefusalTally::count(std::string_view reason)
{
    ++pending_.total;
    auto it = pending_.by_reason.find(reason);
    if (it == pending_.by_reason.end()) {
        // One place is kept for "other", so the map never holds more than
        // kMaxRefusalReasons entries.
        const bool room = pending_.by_reason.size() + 1 < kMaxRefusalReasons;
        const auto key = reason.empty() || !room ? kOtherRefusalReason : reason;
        it = pending_.by_reason.try_emplace(std::string(key), 0).first;
    }
    ++it->second;
}

bool RefusalTally::admit(std::string_view reason, std::uint64_t now_usec)
{
    const auto now = seen(now_usec);
    if (!window_start_usec_ || now - *window_start_usec_ >= kRefusalWindowUsec) {
        window_start_usec_ = now;
        admitted_in_window_ = 0;
    }
    if (admitted_in_window_ < kRefusalBurst) {
        ++admitted_in_window_;
        return true;
    }
    if (pending_.total == 0) {
        // Saturating, so that no clock value makes the summary due at once.
        constexpr auto kLatest = std::numeric_limits<std::uint64_t>::max();
        const auto start = *window_start_usec_;
        pending_due_usec_ = start > kLatest - kRefusalWindowUsec ? kLatest : start + kRefusalWindowUsec;
    }
    count(reason);
    return false;
}

std::optional<std::uint64_t> RefusalTally::due_at() const
{
    if (pending_.total == 0) {
        return std::nullopt;
    }
    return pending_due_usec_;
}

std::optional<RefusalSummary> RefusalTally::due(std::uint64_t now_usec)
{
    const auto now = seen(now_usec);
    if (pending_.total == 0 || now < pending_due_usec_) {
        return std::nullopt;
    }
    return flush();
}

std::optional<RefusalSummary> RefusalTally::flush()
{
    if (pending_.total == 0) {
        return std::nullopt;
    }
    return std::exchange(pending_, RefusalSummary{});
}

} // namespace nr::core
