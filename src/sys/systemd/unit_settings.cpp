// SPDX-License-Identifier: Apache-2.0
#include "sys/systemd/unit_settings.h"

#include "core/base/error.h"
#include "sys/bus/bus_compat.h"
#include "sys/systemd/systemd_manager.h"

namespace nr::sys {

namespace {

sdbus::Variant simple_variant(const core::UnitProperty& property)
{
    if (const auto* flag = std::get_if<bool>(&property.value)) {
        return sdbus::Variant(*flag);
    }
    if (const auto* number = std::get_if<std::uint64_t>(&property.value)) {
        return sdbus::Variant(*number);
    }
    if (const auto* text = std::get_if<std::string>(&property.value)) {
        return sdbus::Variant(*text);
    }
    core::fail(core::ErrorKind::SystemdFailure, property.name + " cannot be changed at runtime here");
}

} // namespace

void set_runtime_properties(sdbus::IConnection& connection, const std::string& unit,
                            const core::UnitProperties& properties)
{
    std::vector<sdbus::Struct<std::string, sdbus::Variant>> list;
    list.reserve(properties.size());
    for (const auto& property : properties) {
        list.emplace_back(property.name, simple_variant(property));
    }
    auto manager = make_proxy(connection, kSystemdService, kSystemdPath);
    try {
        manager->callMethod("SetUnitProperties").onInterface(kManagerInterface).withArguments(unit, true, list);
    } catch (const sdbus::Error& e) {
        core::fail(core::ErrorKind::SystemdFailure,
                   "systemd refused to set the limits of " + unit + ": " + e.getMessage());
    }
}

} // namespace nr::sys
