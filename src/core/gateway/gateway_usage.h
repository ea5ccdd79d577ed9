// SPDX-License-Identifier: Apache-2.0
#pragma once
// What `native-runtimectl status` shows of a session's and its owner's
// traffic through the egress gateway, summed from the gateway's own request
// records and refusal summaries (core/gateway/gateway_log.h) in the journal: the
// journal is the account, the gateway keeps no other.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nr::core {

struct GatewayTally {
    std::uint64_t requests = 0; // every request the gateway answered
    std::uint64_t refused = 0;  // of them, refused by the gateway
    std::uint64_t bytes_in = 0; // from the session
    std::uint64_t bytes_out = 0;

    bool operator==(const GatewayTally&) const = default;
};

// The owner's budget as the newest budgeted record states it.
struct GatewayBudgetState {
    std::uint64_t budget = 0;
    std::uint64_t window_sec = 0;
    std::uint64_t used = 0;       // in the window ending at as_of_usec
    std::uint64_t as_of_usec = 0; // CLOCK_REALTIME of that record

    bool operator==(const GatewayBudgetState&) const = default;
};

struct GatewayUsage {
    GatewayTally session; // this unit's records since it started
    GatewayTally owner;   // all the owner's records in owner_window_sec
    std::uint64_t owner_window_sec = 0;
    std::optional<GatewayBudgetState> budget;
};

struct GatewayRecordFields {
    std::uint64_t realtime_usec = 0;
    std::map<std::string, std::string> fields;
};

// The default window of the owner's tally when the owner has no budget.
inline constexpr std::uint64_t kOwnerTallyWindowSec = 3600;

// The journal matches for the owner's request records and refusal
// summaries, trusted by journald's _SYSTEMD_UNIT= of the gateway's unit.
std::vector<std::vector<std::string>> gateway_usage_terms(const std::string& owner);

// From the earliest time a record can matter: the session's start or the
// longest window the config allows, whichever is earlier.
std::uint64_t gateway_usage_since(std::optional<std::uint64_t> session_since_usec, std::uint64_t now_usec);

// Sums `records` (the owner's, oldest first). The owner's window is the
// newest budgeted record's window, else kOwnerTallyWindowSec. A request
// record with a missing or malformed number counts as a request of 0 bytes;
// a refusal summary counts as NATIVE_RUNTIME_GATEWAY_REFUSALS= refused
// requests of 0 bytes, and as none when that number is missing or
// malformed (as a malformed byte count adds 0).
GatewayUsage tally_gateway_usage(const std::vector<GatewayRecordFields>& records, const std::string& unit,
                                 std::optional<std::uint64_t> session_since_usec, std::uint64_t now_usec);

} // namespace nr::core
