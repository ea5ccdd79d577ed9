#pragma once
// Reads back, from systemd, the effective values of the properties a unit
// was planned with, converted to the core's typed form so the core can
// judge them (core/hardening_check.h).

#include <sdbus-c++/sdbus-c++.h>

#include "core/hardening_check.h"

namespace nr::sys {

// One GetAll per interface (Unit and the unit type's own, e.g.
// org.freedesktop.systemd1.Service): two round trips, not one per property. A value whose bus type is not
// the planned one is reported as a string naming its signature, which the
// core then treats as not applied.
core::EffectiveProperties read_effective_properties(sdbus::IConnection& connection, const sdbus::ObjectPath& unit_path,
                                                    const std::string& type_interface,
                                                    const core::UnitProperties& planned);

} // namespace nr::sys
