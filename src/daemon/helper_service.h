// SPDX-License-Identifier: Apache-2.0
#pragma once
// The helper's composition root: the state every bus object shares (the
// configuration, the launch specs, the tracked sessions) and the objects on
// the helper's path, as systemd-resolved splits its bus code per object:
// Manager (manager_object.h) and Launcher (launcher_object.h), with the
// start pipeline, the sessions' lifecycle and the gateway registrations
// each their own type.

#include "core/config/config.h"
#include "daemon/activity.h"
#include "daemon/claim_table.h"
#include "daemon/gateway_registrations.h"
#include "daemon/launch_channels.h"
#include "daemon/launcher_object.h"
#include "daemon/manager_object.h"
#include "daemon/preflight_gate.h"
#include "daemon/session_lifecycle.h"
#include "daemon/session_registry.h"
#include "daemon/start_pipeline.h"
#include "sys/systemd/systemd_manager.h"

#include <sdbus-c++/sdbus-c++.h>

#include <chrono>
#include <optional>
#include <string>

namespace nr::daemon {

class HelperService {
public:
    HelperService(sdbus::IConnection& connection, core::Config config, std::string launcher_path,
                  std::string config_path);

    // Re-attaches to sessions a previous helper instance started.
    void adopt_running_sessions() { lifecycle_.adopt_running_sessions(); }
    // Runs the preflight checks now, and starts the canary unless a pass
    // from earlier in this boot stands, so that the first session after
    // the helper's start (with the application, at boot) does not wait
    // for them. Needs the bus name: on systemd < 257 the canary's launcher
    // claims its spec from this helper. A failure is logged, never thrown:
    // sessions are refused with it until a check passes.
    void check_host_before_the_first_call();

    // Does what the bus events dispatched since the last call, and the
    // deadlines passed, ask for: answers starts, reports sessions whose
    // unit ended, stops orphans, drops expired claims. Called by the event
    // loop after each dispatch and each wake-up.
    void housekeeping();

    // True when nothing would be lost by exiting: no session to report on,
    // no launch spec waiting, no polkit check waiting, no request for
    // idle_timeout_sec.
    [[nodiscard]] bool idle(std::chrono::steady_clock::time_point now) const;
    // When housekeeping next has something to do that no bus event will
    // announce: a launch spec's deadline, the canary's, or the idle exit.
    // nullopt: only a bus event or a signal can change anything.
    [[nodiscard]] std::optional<std::chrono::steady_clock::time_point>
    next_wakeup(std::chrono::steady_clock::time_point now) const;
    // Nothing runs or waits: only the idle timeout keeps the helper.
    [[nodiscard]] bool unoccupied() const;
    // The helper is about to give up its bus name and exit: calls that
    // would have to wait are refused from now on (Activity).
    void stop_taking_work() { activity_.stop_taking_work(); }
    // Descriptors besides the bus whose input housekeeping acts on: the
    // open helper channels.
    [[nodiscard]] std::vector<int> watched_fds() const { return channels_.fds(); }

private:
    // The Manager's SessionWaiting, for a launcher's report by bus or channel.
    void report_waiting(const TrackedSession& session, std::uint32_t ahead);

    core::Config config_;
    std::string launcher_path_;
    std::string config_path_;
    sys::SystemdManager systemd_;
    ClaimTable claims_;
    SessionRegistry sessions_;
    Activity activity_;
    PreflightGate gate_;
    GatewayRegistrations gateways_;
    LaunchChannels channels_;
    SessionLifecycle lifecycle_;
    // After the state it uses: its destructor answers the calls still
    // waiting and undoes unconfirmed starts.
    StartPipeline pipeline_;
    ManagerObject manager_;
    LauncherObject launcher_;
};

} // namespace nr::daemon
