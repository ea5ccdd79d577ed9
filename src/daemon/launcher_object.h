// SPDX-License-Identifier: Apache-2.0
#pragma once
// The helper's internal Launcher interface (org.metis.NativeRuntime1.Launcher),
// a second object on the Manager's path: what a session's launcher, from
// inside the session's unit, asks of the helper. Every call is authorised by
// the caller's unit (from its cgroup) and UID, never by its payload.

#include "daemon/activity.h"
#include "daemon/claim_table.h"
#include "daemon/gateway_registrations.h"
#include "daemon/session_registry.h"
#include "daemon/start_pipeline.h"
#include "dbus/native_runtime_launcher_adaptor.h"
#include "sys/bus/launch_spec_bus.h"
#include "sys/systemd/systemd_manager.h"

#include <sdbus-c++/sdbus-c++.h>

#include <cstdint>
#include <functional>
#include <string>

namespace nr::daemon {

class LauncherObject final : public sdbus::AdaptorInterfaces<org::metis::NativeRuntime1::Launcher_adaptor> {
public:
    // Tells the session's callers how many sessions are ahead of it in the
    // host-auth admission queue (the Manager's SessionWaiting signal).
    using WaitReport = std::function<void(const TrackedSession& session, std::uint32_t ahead)>;

    LauncherObject(sdbus::IConnection& connection, sys::SystemdManager& systemd, ClaimTable& claims,
                   const SessionRegistry& sessions, StartPipeline& pipeline, GatewayRegistrations& gateways,
                   Activity& activity, WaitReport report_wait);
    ~LauncherObject();
    LauncherObject(const LauncherObject&) = delete;
    LauncherObject& operator=(const LauncherObject&) = delete;
    LauncherObject(LauncherObject&&) = delete;
    LauncherObject& operator=(LauncherObject&&) = delete;

private:
    // The launch spec, encoded by core::encode_launch_spec (sys/bus/launch_spec_bus.h).
    // Asynchronous on the bus: a Claim for a spec whose hardening is still
    // being read back waits in the start pipeline.
    void Claim(sys::ClaimResult&& result, std::string token) override;
    void ReportWaiting(const uint32_t& ahead) override;
    // Registers a gateway session's listener with the egress gateway
    // (core/gateway/egress.h), once, for the launcher that claimed its spec.
    void HandOverListener(const std::string& token, const sdbus::UnixFd& listener) override;
    // The unit of the calling process, from its cgroup ("" when unknown).
    [[nodiscard]] std::string caller_unit() const;

    sys::SystemdManager& systemd_;
    ClaimTable& claims_;
    const SessionRegistry& sessions_;
    StartPipeline& pipeline_;
    GatewayRegistrations& gateways_;
    Activity& activity_;
    WaitReport report_wait_;
};

} // namespace nr::daemon
