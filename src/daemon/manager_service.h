#pragma once
// The helper's D-Bus object. Each handler follows the same order: parse,
// validate, authorize, act, emit, reply; every refusal is a typed error.

#include <sdbus-c++/sdbus-c++.h>

#include <array>
#include <chrono>
#include <map>
#include <memory>
#include <set>

#include "core/config/config.h"
#include "core/journal/log_event.h"
#include "core/plan/session_plan.h"
#include "daemon/claim_table.h"
#include "daemon/preflight_gate.h"
#include "daemon/session_registry.h"
#include "daemon/worker_watch.h"
#include "dbus/native_runtime_adaptor.h"
#include "dbus/native_runtime_launcher_adaptor.h"
#include "sys/bus/launch_spec_bus.h"
#include "sys/systemd/effective_properties.h"
#include "sys/systemd/systemd_manager.h"

namespace nr::daemon {

class ManagerService final : public sdbus::AdaptorInterfaces<org::metis::NativeRuntime1::Manager_adaptor,
                                                             org::metis::NativeRuntime1::Launcher_adaptor> {
public:
    ManagerService(sdbus::IConnection& connection, core::Config config, std::string launcher_path,
                   std::string config_path);
    ~ManagerService();
    ManagerService(const ManagerService&) = delete;
    ManagerService& operator=(const ManagerService&) = delete;
    ManagerService(ManagerService&&) = delete;
    ManagerService& operator=(ManagerService&&) = delete;

    // Re-attaches to sessions a previous helper instance started.
    void adopt_running_sessions();

    // Reports sessions whose unit stopped and drops expired claims; called by
    // the event loop between dispatches.
    void housekeeping();

    // True when nothing would be lost by exiting: no session to report on,
    // no launch spec waiting, no request for idle_timeout_sec.
    [[nodiscard]] bool idle(std::chrono::steady_clock::time_point now) const;
    [[nodiscard]] std::chrono::milliseconds idle_timeout() const;

private:
    using StartReply = sdbus::Result<std::string, sdbus::ObjectPath>;
    using CanaryReply = sdbus::Result<bool, std::string, std::string>;
    // A StartSession that arrived before the preflight canary's verdict:
    // everything the bus said about its caller, captured while the call
    // was being dispatched, and the reply to send once the verdict is in.
    struct WaitingStart {
        StartReply reply;
        core::SessionRequest request;
        core::RunAsUser user;
        std::string worker;
        core::Caller caller;
        std::array<sdbus::UnixFd, 3> stdio;
    };

    // Asynchronous on the bus (Method.Async=server): the first session of
    // an instance may wait for the canary, whose launcher calls Claim on
    // this same connection.
    void StartSession(StartReply&& result, std::string owner, std::string chat, std::string job, std::string adapter,
                      std::vector<std::string> argv, std::string workspace,
                      std::map<std::string, std::string> environment, std::string run_as_user, sdbus::UnixFd stdin_fd,
                      sdbus::UnixFd stdout_fd, sdbus::UnixFd stderr_fd) override;
    void StartSessionWithOptions(StartReply&& result, std::string owner, std::string chat, std::string adapter,
                                 std::vector<std::string> argv, sdbus::UnixFd stdin_fd, sdbus::UnixFd stdout_fd,
                                 sdbus::UnixFd stderr_fd, std::map<std::string, sdbus::Variant> options) override;
    void RunCanary(CanaryReply&& result, std::string run_as_user) override;
    // A session whose unit the helper asked systemd to start, and whose
    // hardening it reads back. Both calls are asynchronous, so one slow
    // answer from PID 1 (it answers a unit's GetAll only after spawning that
    // unit) does not hold up every other StartSession behind it; the spec
    // stays unconfirmed in claims_ (its launcher's Claim waits) and the call
    // unanswered until the start succeeded and the read passed.
    struct StartInFlight {
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

        [[nodiscard]] bool ready() const { return start->ready() && read->ready(); }
        // Whether systemd may have the unit, so undoing must stop it.
        [[nodiscard]] std::optional<sdbus::ObjectPath> started() const;
    };
    // A launcher's Claim that came while its unit's hardening was still
    // being read back; answered by settle_parked_claims.
    struct ParkedClaim {
        sys::ClaimResult reply;
        std::string unit;
        uid_t uid = 0;
        core::Caller caller;
    };
    // Everything StartSession does once the host passed preflight, up to
    // sending the start and the read-back; `caller` was captured
    // while the call was dispatched (for the journal). Throws before it
    // takes `reply` (the caller answers the error); once it returns,
    // finish_ready_starts answers.
    void start_session(StartReply&& reply, const core::SessionRequest& request, const core::RunAsUser& user,
                       const std::string& worker, const core::Caller& caller,
                       const std::array<sdbus::UnixFd, 3>& stdio);
    // Answers each start whose start and read-back are answered: the
    // session, or the refusal (and the start undone).
    void finish_ready_starts();
    void finish_start(StartInFlight& start);
    // Hands out or refuses each parked Claim whose spec was confirmed or
    // withdrawn meanwhile.
    void settle_parked_claims();
    void log_started(const StartInFlight& start);
    // Answers every call that waited for the canary's `verdict`.
    void release_waiting(const core::CheckResult& verdict);
    void StopSession(const std::string& owner, const std::string& chat) override;
    std::string Version() override;
    uint32_t ActiveSessions() override;
    // The launch spec, encoded by core::encode_launch_spec (sys/bus/launch_spec_bus.h).
    // Asynchronous on the bus: see StartInFlight.
    void Claim(sys::ClaimResult&& result, std::string token) override;
    void ReportWaiting(const uint32_t& ahead) override;
    // Registers a gateway session's listener with the egress gateway
    // (core/gateway/egress.h), once, for the launcher that claimed its spec.
    void HandOverListener(const std::string& token, const sdbus::UnixFd& listener) override;
    // Tells the gateway that a gateway session's unit ended; best effort.
    void revoke_gateway(const std::string& unit);

    // Throws HardeningNotApplied when systemd's effective value of a planned
    // property is weaker, SystemdFailure when the read failed
    // (finish_start then undoes the start).
    static void refuse_unless_applied(const StartInFlight& start);
    // Caps the owner's slice as configured; HardeningNotApplied if systemd
    // reports a weaker value than asked for.
    void apply_owner_limits(const std::string& slice);
    // Stops the session with its worker unless the adapter keeps it.
    void bind_to_worker(const std::string& adapter, const std::string& worker, const std::string& unit);
    void stop_orphaned_sessions();
    [[nodiscard]] uid_t caller_uid() const;
    [[nodiscard]] pid_t caller_pid() const;
    void touch();
    void report_end(const TrackedSession& session);
    bool has_ended(const TrackedSession& session);

    sdbus::IConnection& connection_;
    core::Config config_;
    std::string launcher_path_;
    sys::SystemdManager systemd_;
    ClaimTable claims_;
    SessionRegistry sessions_;
    WorkerWatch workers_;
    std::chrono::steady_clock::time_point last_activity_;
    std::string config_path_;
    PreflightGate gate_{connection_, config_, launcher_path_, config_path_, claims_};
    std::vector<WaitingStart> waiting_starts_;
    std::vector<StartInFlight> in_flight_;
    std::map<std::string, ParkedClaim> parked_claims_; // by token
    std::vector<CanaryReply> waiting_canary_calls_;
    // Units registered with the egress gateway, revoked when they end.
    std::set<std::string> gateway_units_;
};

} // namespace nr::daemon
