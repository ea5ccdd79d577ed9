// SPDX-License-Identifier: Apache-2.0
#pragma once
// The gateway's per-owner request budget (gateway.request_budget): at most
// `limit` relayed requests by all of an owner's sessions in any `window`.
// A sliding window of exact timestamps, not a token bucket, so "500 an
// hour" never lets 1000 through across an hour's boundary. Pure: the
// caller passes the clock.

#include <cstdint>
#include <deque>
#include <map>
#include <string>

namespace nr::core {

struct BudgetDecision {
    bool admitted = false;
    // Requests of the owner in the window, this one included when admitted.
    std::uint64_t used = 0;
    // When refused: seconds until the oldest request in the window leaves
    // it (at least 1), for Retry-After.
    std::uint64_t retry_after_sec = 0;
};

class RequestBudget {
public:
    // limit 0: no budget; admitted, and nothing is kept for the owner.
    BudgetDecision admit(const std::string& owner, std::uint64_t limit, std::uint64_t window_usec,
                         std::uint64_t now_usec);

    // Owners with requests still in their window (what the gateway holds).
    std::size_t tracked_owners() const { return admitted_.size(); }

private:
    std::map<std::string, std::deque<std::uint64_t>> admitted_;
};

} // namespace nr::core
