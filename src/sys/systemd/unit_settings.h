// SPDX-License-Identifier: Apache-2.0
#pragma once
// Changes settings of an existing (or implicitly created) unit at runtime,
// as `systemctl set-property --runtime` does: nothing is written to /etc,
// and the change is gone after a reboot, like the sessions it serves.

#include <sdbus-c++/sdbus-c++.h>

#include <string>

#include "core/plan/unit_properties.h"

namespace nr::sys {

// Only flag, number and string values are supported (all a slice needs);
// anything else, or systemd's refusal, throws core::Error(SystemdFailure).
void set_runtime_properties(sdbus::IConnection& connection, const std::string& unit,
                            const core::UnitProperties& properties);

} // namespace nr::sys
