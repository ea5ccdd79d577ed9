// SPDX-License-Identifier: Apache-2.0
#include "core/gateway/request_budget.h"

namespace nr::core {

namespace {

constexpr std::uint64_t kUsecPerSec = 1000000;

} // namespace

BudgetDecision RequestBudget::admit(const std::string& owner, std::uint64_t limit, std::uint64_t window_usec,
                                    std::uint64_t now_usec)
{
    if (limit == 0) {
        admitted_.erase(owner);
        return {true, 0, 0};
    }
    auto& times = admitted_[owner];
    // A request at time t is in the window until t + window; the clock is
    // monotonic, so the oldest leave first.
    while (!times.empty() && times.front() + window_usec <= now_usec) {
        times.pop_front();
    }
    // A budget lowered by a newer registration: the excess timestamps are
    // the oldest and are dropped, so the window never holds more than the
    // limit allows.
    while (times.size() > limit) {
        times.pop_front();
    }
    if (times.size() < limit) {
        times.push_back(now_usec);
        return {true, times.size(), 0};
    }
    const auto wait_usec = times.front() + window_usec - now_usec;
    return {false, times.size(), (wait_usec + kUsecPerSec - 1) / kUsecPerSec};
}

} // namespace nr::core
