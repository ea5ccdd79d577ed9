// SPDX-License-Identifier: Apache-2.0
#pragma once
// Whether a systemd unit has ended, decided in one place for the helper's
// sessions, its preflight canary and the CLI, from the unit's properties.

#include <cstdint>
#include <string_view>

namespace nr::core {

// ActiveState says the unit is not running (nor starting or stopping).
bool is_stopped_state(std::string_view active_state);

// A unit has ended once it is "failed", or "inactive" after it had left
// "inactive" at least once (InactiveExitTimestampMonotonic is not 0): a unit
// whose start job is still queued is "inactive" too. Read the timestamp
// before the state (sys::SystemdManager::unit_ended does): the other order
// can pair a queued start's "inactive" with the timestamp of the start that
// followed, and take the unit's defaults (Result=success, status 0) for its end.
bool unit_has_ended(std::string_view active_state, std::uint64_t inactive_exit_usec);

} // namespace nr::core
