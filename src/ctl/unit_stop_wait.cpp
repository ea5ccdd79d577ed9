// SPDX-License-Identifier: Apache-2.0
#include "ctl/unit_stop_wait.h"

#include "core/base/error.h"
#include "core/base/unit_state.h"
#include "core/bus/match_rules.h"
#include "sys/bus/bus_compat.h"
#include "sys/bus/bus_loop.h"

#include <limits>
#include <utility>

namespace nr::ctl {

std::string unit_state_match(const std::string& path)
{
    return core::match_component("type", "signal") + "," + core::match_component("sender", sys::kSystemdService) + "," +
           core::match_component("path", path) + "," +
           core::match_component("interface", "org.freedesktop.DBus.Properties") + "," +
           core::match_component("member", "PropertiesChanged") + "," +
           core::match_component("arg0", sys::kUnitInterface);
}

UnitStopWait::UnitStopWait(sdbus::IConnection& connection, std::string unit)
    : connection_(connection), systemd_(connection), unit_(std::move(unit)),
      match_(sys::add_match(connection, unit_state_match(sys::unit_object_path(unit_)),
                            [this](sdbus::Message& /*message*/) { changed_ = true; }))
{
    systemd_.subscribe();
}

bool UnitStopWait::stopped()
{
    const auto path = systemd_.unit_path(unit_);
    if (!path) {
        return true;
    }
    std::string state;
    try {
        state = systemd_.unit_property(*path, sys::kUnitInterface, "ActiveState").get<std::string>();
    } catch (const core::Error&) {
        state.clear(); // unloaded between the two calls: GetUnit says so next
    }
    return core::is_stopped_state(state);
}

void UnitStopWait::wait()
{
    // No signal ends this wait: Ctrl-C ends the CLI as before, by default.
    const sys::StopSignals none({});
    constexpr int kUntilAnEvent = std::numeric_limits<int>::max();
    while (!stopped()) {
        // Only a change of the unit is worth asking systemd again; other
        // wake-ups (a call's answer queued behind the state read) are not.
        // A signal queued during the read above makes the wait return at once.
        do {
            (void)sys::wait_for_bus_or_signal(connection_, none, kUntilAnEvent);
            sys::dispatch_pending(connection_);
        } while (!std::exchange(changed_, false));
    }
}

} // namespace nr::ctl
