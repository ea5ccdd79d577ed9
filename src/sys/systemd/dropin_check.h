// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reads back what systemd applied to an application unit after a reload and
// lets the core decide whether the late drop-in is in effect. Used by
// install-dropins and by preflight.

#include "core/ops/dropin.h"
#include "sys/systemd/systemd_manager.h"

#include <string>
#include <vector>

namespace nr::sys {

// Conflicts for `unit` (empty when our drop-in `ours` is in effect and
// systemd reports every `expected` setting). A unit that is not loaded is
// one conflict naming its LoadState.
std::vector<core::Conflict> check_dropin_effective(SystemdManager& systemd, const std::string& unit,
                                                   const std::vector<core::ExpectedSetting>& expected,
                                                   const std::string& ours);

// True when systemd reports the helper among the unit's Wants= and After=.
bool unit_starts_after_the_helper(SystemdManager& systemd, const std::string& unit);

// True when systemd lists `path` among the unit's DropInPaths.
bool dropin_applied(SystemdManager& systemd, const std::string& unit, const std::string& path);

} // namespace nr::sys
