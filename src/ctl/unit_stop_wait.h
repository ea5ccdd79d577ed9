// SPDX-License-Identifier: Apache-2.0
#pragma once
// `native-runtimectl stop`'s wait, as `systemctl stop` waits: until systemd
// says every process of the unit is gone (the unit unloaded, or inactive or
// failed). It wakes on the unit's own PropertiesChanged signal, which
// carries ActiveState, instead of asking systemd on a timer.

#include "sys/systemd/systemd_manager.h"

#include <sdbus-c++/sdbus-c++.h>

#include <string>

namespace nr::ctl {

// The changes of the org.freedesktop.systemd1.Unit properties of the unit
// at `path` only: one unit's signals, not every unit's. A unit's object
// path holds only [A-Za-z0-9_/], so it needs no escaping, unlike its name.
std::string unit_state_match(const std::string& path);

class UnitStopWait {
public:
    // Subscribes to systemd's unit signals (PID 1 sends them only to
    // subscribers) and matches the unit's: in place when the constructor
    // returns, so constructed before the stop is asked for, no change is
    // missed. Throws core::Error(SystemdFailure) when systemd refuses.
    UnitStopWait(sdbus::IConnection& connection, std::string unit);
    UnitStopWait(const UnitStopWait&) = delete;
    UnitStopWait& operator=(const UnitStopWait&) = delete;
    UnitStopWait(UnitStopWait&&) = delete;
    UnitStopWait& operator=(UnitStopWait&&) = delete;
    ~UnitStopWait() = default;

    // Returns once the unit is unloaded, inactive or failed; the state is
    // read at once and again after each change systemd signals.
    void wait();

private:
    bool stopped();

    sdbus::IConnection& connection_;
    sys::SystemdManager systemd_;
    std::string unit_;
    bool changed_ = false;
    // Last, so it goes first: no callback runs against a destroyed member.
    sdbus::Slot match_;
};

} // namespace nr::ctl
