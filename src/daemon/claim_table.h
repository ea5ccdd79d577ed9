// SPDX-License-Identifier: Apache-2.0
#pragma once
// Launch specs waiting for their launcher. A spec may hold the adapter's
// credentials, so it lives only in the helper's memory (never in a unit
// property, argv or file) until the helper sends it, once, over the unit's
// helper channel: at once where systemd passed the channel into the unit,
// or when a process that runs in the session's own unit as the session's
// user claims the channel (Launcher.Claim, systemd < 257).

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>

#include "core/gateway/egress.h"
#include "core/plan/session_plan.h"

namespace nr::daemon {

struct PendingLaunch {
    std::string unit_name;
    uid_t uid = 0;
    core::LaunchSpec spec;
    std::chrono::steady_clock::time_point deadline;
    // False while the helper has not yet read back the unit's hardening
    // (the start pipeline reads it asynchronously): such a spec is not handed
    // out; its launcher's Claim waits for confirm() or the start's undoing.
    bool confirmed = true;
    // Set for a `network: gateway` session: what the helper registers with
    // the gateway once the launcher hands over its listener.
    std::optional<core::GatewaySession> gateway;
    // systemd passed the unit its helper channel
    // (core::SpecDelivery::HelperChannel): the helper sends the spec there
    // itself, and Claim never hands it out.
    bool by_channel = false;
};

// What a Claim would get now.
enum class ClaimState {
    Ready,       // the caller's, confirmed: claim() hands it out
    Unconfirmed, // the caller's, but the unit's hardening is still being read back
    NoMatch,     // no such token, or another unit or UID than the caller's
};

class ClaimTable {
public:
    // Returns a fresh random token (128 bits, hex).
    static std::string new_token();

    void add(const std::string& token, PendingLaunch launch);
    void remove(const std::string& token);
    void remove_unit(const std::string& unit_name);

    // Hands out the spec once, for the helper to send on the channel it
    // makes for this Claim, when `caller_unit` and `caller_uid` match.
    // The token is visible in ExecStart= to every local user, so a mismatched
    // claim leaves the entry in place: a stranger can neither read the spec
    // nor burn it.
    // An unconfirmed spec is not handed out.
    // A spec sent by channel is never claimed: NoMatch for every caller.
    std::optional<core::LaunchSpec> claim(const std::string& token, const std::string& caller_unit, uid_t caller_uid);
    // The confirmed spec of a unit systemd passed its channel, once, for the
    // helper to send.
    std::optional<core::LaunchSpec> take_for_channel(const std::string& token);
    [[nodiscard]] ClaimState state(const std::string& token, const std::string& caller_unit, uid_t caller_uid) const;
    void confirm(const std::string& token);

    // A gateway session's registration, once, to the launcher that claimed
    // its spec: the same unit and UID as the Claim, with the Claim's token.
    // Like claim(), a mismatch leaves the entry in place.
    std::optional<core::GatewaySession> take_gateway(const std::string& token, const std::string& caller_unit,
                                                     uid_t caller_uid);

    void drop_expired(std::chrono::steady_clock::time_point now);
    // When drop_expired next has something to drop; nullopt when empty.
    // The helper's loop sleeps until then, not on a tick.
    [[nodiscard]] std::optional<std::chrono::steady_clock::time_point> next_deadline() const;
    [[nodiscard]] bool empty() const { return pending_.empty() && handovers_.empty(); }

private:
    // A claimed gateway session whose launcher has yet to hand over its
    // listener.
    struct PendingHandover {
        std::string unit_name;
        uid_t uid = 0;
        core::GatewaySession session;
        std::chrono::steady_clock::time_point deadline;
    };

    core::LaunchSpec take(std::map<std::string, PendingLaunch>::iterator it);

    std::map<std::string, PendingLaunch> pending_;
    std::map<std::string, PendingHandover> handovers_; // by claim token
};

} // namespace nr::daemon
