// SPDX-License-Identifier: Apache-2.0
#pragma once
// A StartSession from the moment the host passed preflight until its caller
// has the session or the refusal: the plan, the launch spec registered for
// its launcher, systemd's start and the read-back of the unit's hardening,
// both asynchronous, and the launchers' Claims that came before that
// read-back confirmed the spec. Calls that came before the preflight
// canary's verdict wait here too.

#include "core/config/config.h"
#include "core/journal/log_event.h"
#include "core/ops/preflight.h"
#include "core/plan/caller_policy.h"
#include "core/plan/session_plan.h"
#include "daemon/claim_table.h"
#include "daemon/session_registry.h"
#include "sys/base/unique_fd.h"
#include "sys/systemd/effective_properties.h"
#include "sys/systemd/systemd_manager.h"

#include <sdbus-c++/sdbus-c++.h>

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nr::daemon {

using StartReply = sdbus::Result<std::string, sdbus::ObjectPath>;
using CanaryReply = sdbus::Result<bool, std::string, std::string>;
// Launcher.Claim's answer: the unit's end of its helper channel.
using ClaimReply = sdbus::Result<sdbus::UnixFd>;

// A StartSession that arrived before the preflight canary's verdict:
// everything the bus said about its caller, captured while the call was
// being dispatched, and the reply to send once the verdict is in.
struct WaitingStart {
    StartReply reply;
    core::SessionRequest request;
    core::RunAsUser user;
    std::string worker;
    core::Caller caller;
    std::array<sdbus::UnixFd, 3> stdio;
};

// A launcher's Claim that came while its unit's hardening was still being
// read back.
struct ParkedClaim {
    ClaimReply reply;
    std::string unit;
    uid_t uid = 0;
    core::Caller caller;
};

class StartPipeline {
public:
    // Called for each session once its start is confirmed, before its
    // caller is answered: (adapter, worker's bus name, unit).
    using StartedHook = std::function<void(const std::string&, const std::string&, const std::string&)>;
    // Takes the helper's end of a channel whose spec was sent, for what
    // its launcher says next (daemon/launch_channels.h): (unit, uid, claim
    // token, end).
    using KeepChannel = std::function<void(const std::string&, uid_t, const std::string&, sys::UniqueFd)>;

    StartPipeline(sdbus::IConnection& connection, const core::Config& config, const std::string& launcher_path,
                  sys::SystemdManager& systemd, ClaimTable& claims, SessionRegistry& sessions, StartedHook started,
                  KeepChannel keep_channel);
    // Answers every call still waiting here, and undoes the starts whose
    // hardening was never confirmed.
    ~StartPipeline();
    StartPipeline(const StartPipeline&) = delete;
    StartPipeline& operator=(const StartPipeline&) = delete;
    StartPipeline(StartPipeline&&) = delete;
    StartPipeline& operator=(StartPipeline&&) = delete;

    // Everything StartSession does once the host passed preflight, up to
    // sending the start and the read-back; `caller` was captured while the
    // call was dispatched (for the journal). Throws before it takes `reply`
    // (the caller answers the error); once it returns, finish_ready_starts
    // answers.
    void start(StartReply&& reply, const core::SessionRequest& request, const core::RunAsUser& user,
               const std::string& worker, const core::Caller& caller, const std::array<sdbus::UnixFd, 3>& stdio);
    // Calls that wait for the canary's verdict: release_waiting answers them.
    void wait_for_verdict(WaitingStart start) { waiting_starts_.push_back(std::move(start)); }
    void wait_for_verdict(CanaryReply&& reply) { waiting_canary_calls_.push_back(std::move(reply)); }
    // Answers every call that waited for the canary's `verdict`.
    void release_waiting(const core::CheckResult& verdict);
    // Answers each start whose start and read-back are answered: the
    // session, or the refusal (and the start undone).
    void finish_ready_starts();
    // A Claim for an unconfirmed spec waits until settle_parked_claims can
    // answer it. One launcher per unit: the caller refuses a second Claim
    // while one waits.
    [[nodiscard]] bool has_parked_claim(const std::string& token) const { return parked_claims_.count(token) != 0; }
    void park_claim(const std::string& token, ParkedClaim claim) { parked_claims_.emplace(token, std::move(claim)); }
    // Hands out or refuses each parked Claim whose spec was confirmed or
    // withdrawn meanwhile.
    void settle_parked_claims();
    // For a Claim the claim table found Ready: a new helper channel with
    // the spec sent on it; the helper keeps its end (KeepChannel), and the
    // unit's end is the Claim's answer.
    sys::UniqueFd channel_for_claim(const std::string& token, const std::string& unit, uid_t uid);

    // Nothing waits here.
    [[nodiscard]] bool empty() const
    {
        return waiting_starts_.empty() && waiting_canary_calls_.empty() && in_flight_.empty() && parked_claims_.empty();
    }

private:
    // Refuses every call that waited for the canary, with `refusal`.
    void refuse_waiting(const core::Error& refusal);
    // A session whose unit the helper asked systemd to start, and whose
    // hardening it reads back. Both calls are asynchronous, so one slow
    // answer from PID 1 (it answers a unit's GetAll only after spawning that
    // unit) does not hold up every other StartSession behind it; the spec
    // stays unconfirmed in the claim table (its launcher's Claim waits) and
    // the call unanswered until the start succeeded and the read passed.
    struct InFlight {
        StartReply reply;
        core::SessionRequest request;
        std::string worker;
        core::Caller caller;
        uid_t uid = 0;
        std::string unit;
        sdbus::ObjectPath path;
        std::string token;
        core::UnitProperties planned;
        // Both sent at once: PID 1 handles a connection's calls in order,
        // so the read sees the unit the start created (its answer is
        // ignored when the start failed).
        std::unique_ptr<sys::TransientStart> start;
        std::unique_ptr<sys::EffectivePropertiesRead> read;
        // The helper's end of the unit's helper channel, when the spec goes
        // that way; closed unsent when the start is undone, which the
        // launcher reads as the launch withdrawn.
        sys::UniqueFd channel;

        [[nodiscard]] bool ready() const { return start->ready() && read->ready(); }
        // Whether systemd may have the unit, so undoing must stop it.
        [[nodiscard]] std::optional<sdbus::ObjectPath> started() const;
    };

    core::SessionPlan plan(const core::SessionRequest& request, const core::RunAsUser& user, const std::string& worker,
                           const std::string& token, const std::string& gateway_token);
    void finish(InFlight& start);
    void refuse(InFlight& start, const core::Error& error);
    // Once the read-back passed: the spec over the unit's helper channel.
    void send_by_channel(InFlight& start);
    static void log_started(const InFlight& start);
    // Throws HardeningNotApplied when systemd's effective value of a planned
    // property is weaker, SystemdFailure when the read failed (finish then
    // undoes the start).
    static void refuse_unless_applied(const InFlight& start);
    // Caps the owner's slice as configured; HardeningNotApplied if systemd
    // reports a weaker value than asked for.
    void apply_owner_limits(const std::string& slice);

    sdbus::IConnection& connection_;
    const core::Config& config_;
    const std::string& launcher_path_;
    sys::SystemdManager& systemd_;
    ClaimTable& claims_;
    SessionRegistry& sessions_;
    StartedHook started_;
    KeepChannel keep_channel_;
    std::vector<WaitingStart> waiting_starts_;
    std::vector<CanaryReply> waiting_canary_calls_;
    std::vector<InFlight> in_flight_;
    std::map<std::string, ParkedClaim> parked_claims_; // by token
};

} // namespace nr::daemon
