// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reads back, from systemd, the effective values of the properties a unit
// was planned with, converted to the core's typed form so the core can
// judge them (core/plan/hardening_check.h).

#include <sdbus-c++/sdbus-c++.h>

#include <map>
#include <memory>
#include <string>

#include "core/plan/hardening_check.h"

namespace nr::sys {

// One GetAll per interface (Unit and the unit type's own, e.g.
// org.freedesktop.systemd1.Service): two round trips, not one per property. A value whose bus type is not
// the planned one is reported as a string naming its signature, which the
// core then treats as not applied.
core::EffectiveProperties read_effective_properties(sdbus::IConnection& connection, const sdbus::ObjectPath& unit_path,
                                                    const std::string& type_interface,
                                                    const core::UnitProperties& planned);

// The same read without blocking the helper's single thread: both GetAll
// calls go out at once and their replies arrive through the connection's
// dispatch, so the helper can start other units meanwhile (PID 1 answers a
// unit's GetAll only after it has spawned that unit). Poll ready(); result()
// then gives what read_effective_properties would have, or throws its
// SystemdFailure. Destroying the read cancels the calls.
class EffectivePropertiesRead {
public:
    EffectivePropertiesRead(sdbus::IConnection& connection, const sdbus::ObjectPath& unit_path,
                            const std::string& type_interface, core::UnitProperties planned);
    EffectivePropertiesRead(const EffectivePropertiesRead&) = delete;
    EffectivePropertiesRead& operator=(const EffectivePropertiesRead&) = delete;
    EffectivePropertiesRead(EffectivePropertiesRead&&) = delete;
    EffectivePropertiesRead& operator=(EffectivePropertiesRead&&) = delete;
    ~EffectivePropertiesRead() = default;

    [[nodiscard]] bool ready() const { return outstanding_ == 0; }
    [[nodiscard]] core::EffectiveProperties result() const;

private:
    core::UnitProperties planned_;
    std::map<std::string, sdbus::Variant> all_;
    std::string failure_;
    int outstanding_ = 0;
    // Last, so it goes first: its destruction cancels the calls whose
    // replies would write to the members above.
    std::unique_ptr<sdbus::IProxy> unit_;
};

} // namespace nr::sys
