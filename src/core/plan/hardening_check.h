// SPDX-License-Identifier: Apache-2.0
#pragma once
// Compares the properties the helper planned for a session unit with the
// values systemd reports once the unit is loaded. Drop-ins (for example
// /etc/systemd/system/native-runtime-.service.d/*.conf) apply to transient
// units as well, so a planned value is only evidence of intent; this check
// is what turns "we asked for it" into "systemd applied it".

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/plan/unit_properties.h"

namespace nr::core {

// A property as systemd reports it, already converted from its bus type.
using EffectiveValue = std::variant<bool, std::uint64_t, std::string, std::vector<std::string>, AddressList,
                                    ExecCommand, NameList, ErrorNumber>;
using EffectiveProperties = std::map<std::string, EffectiveValue, std::less<>>;

struct Weakening {
    std::string property;
    std::string planned;
    std::string effective;
};

// The planned properties whose effective values must be read back, in plan
// order. Stdio slots, journal fields and the description are not part of the
// isolation and are not checked.
std::vector<std::string> checked_property_names(const UnitProperties& planned);

// The first checked property whose effective value is weaker than planned,
// or a missing one; nullopt when every one holds. "Weaker" per kind:
//   flags that turn protection on must still be true;
//   limits (MemoryMax, TasksMax, CPUQuotaPerSecUSec, RuntimeMaxUSec) may be
//   lower, never higher;
//   capability masks may lose bits, never gain them;
//   IPAddressDeny may grow, IPAddressAllow may shrink;
//   a deny list of names (SystemCallFilter) may grow, an allow list
//   (RestrictAddressFamilies) may shrink, and neither may change kind;
//   everything else (User, Slice, ProtectProc, KillMode, ExecStart...) must
//   be exactly as planned.
std::optional<Weakening> find_weakening(const UnitProperties& planned, const EffectiveProperties& effective);

} // namespace nr::core
