// SPDX-License-Identifier: Apache-2.0
#pragma once
// The sessions' lives after their start: adopting the running sessions of
// an earlier helper instance, stopping sessions whose worker left the bus,
// and reporting each session's end once systemd says its unit ended.

#include "core/config/config.h"
#include "daemon/claim_table.h"
#include "daemon/gateway_registrations.h"
#include "daemon/session_registry.h"
#include "daemon/worker_watch.h"
#include "sys/systemd/systemd_manager.h"

#include <sdbus-c++/sdbus-c++.h>

#include <functional>
#include <string>

namespace nr::daemon {

class SessionLifecycle {
public:
    // Called once per session whose end was recorded: the Manager object
    // emits SessionEnded from it.
    using EndReport = std::function<void(const TrackedSession& session, const sys::UnitEnd& end)>;

    // Subscribes to systemd's unit signals: PID 1 sends a unit's changes
    // only to connections that asked, and the ends reported here come from
    // them (SessionRegistry).
    SessionLifecycle(sdbus::IConnection& connection, const core::Config& config, sys::SystemdManager& systemd,
                     ClaimTable& claims, SessionRegistry& sessions, GatewayRegistrations& gateways, EndReport report);

    // Re-attaches to sessions a previous helper instance started.
    void adopt_running_sessions();
    // Stops the session with its worker unless the adapter keeps it.
    void bind_to_worker(const std::string& adapter, const std::string& worker, const std::string& unit);
    // Records and reports the end of every session whose unit systemd
    // reported stopped since the last call and confirms ended. True when
    // any was.
    bool report_ended_sessions();
    void stop_orphaned_sessions();

private:
    bool has_ended(const TrackedSession& session);
    void report_end(const TrackedSession& session);

    const core::Config& config_;
    sys::SystemdManager& systemd_;
    ClaimTable& claims_;
    SessionRegistry& sessions_;
    GatewayRegistrations& gateways_;
    EndReport report_;
    WorkerWatch workers_;
};

} // namespace nr::daemon
