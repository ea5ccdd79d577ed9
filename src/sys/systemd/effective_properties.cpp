// SPDX-License-Identifier: Apache-2.0
#include "sys/systemd/effective_properties.h"

#include "core/base/error.h"
#include "sys/bus/bus_compat.h"
#include "sys/systemd/systemd_manager.h"

namespace nr::sys {

namespace {

using AllProperties = std::map<std::string, sdbus::Variant>;
using AddressWire = std::vector<sdbus::Struct<std::int32_t, std::vector<std::uint8_t>, std::uint32_t>>;
using NameListWire = sdbus::Struct<bool, std::vector<std::string>>;
using ExecWire = std::vector<sdbus::Struct<std::string, std::vector<std::string>, bool, std::uint64_t, std::uint64_t,
                                           std::uint64_t, std::uint64_t, std::uint32_t, std::int32_t, std::int32_t>>;

AllProperties get_all(sdbus::IProxy& unit, const std::string& interface)
{
    AllProperties all;
    try {
        unit.callMethod("GetAll")
            .onInterface("org.freedesktop.DBus.Properties")
            .withArguments(interface)
            .storeResultsTo(all);
    } catch (const sdbus::Error& e) {
        core::fail(core::ErrorKind::SystemdFailure,
                   "reading the properties of " + std::string(unit.getObjectPath()) + ": " + e.getMessage());
    }
    return all;
}

core::AddressList to_address_list(const AddressWire& wire)
{
    core::AddressList list;
    for (const auto& entry : wire) {
        list.prefixes.push_back({entry.get<0>(), entry.get<1>(), entry.get<2>()});
    }
    return list;
}

core::ExecCommand to_exec_command(const ExecWire& wire)
{
    if (wire.size() != 1) {
        // Appended, not a chain of operator+: GCC 12 at -O3 reports a false -Wrestrict for that.
        std::string shown = "(";
        shown.append(std::to_string(wire.size())).append(" commands)");
        return {shown, {}};
    }
    return {wire.front().get<0>(), wire.front().get<1>()};
}

// Converts `value` to the alternative `planned` holds.
struct Convert {
    const sdbus::Variant& value;

    core::EffectiveValue operator()(bool /*planned*/) const { return value.get<bool>(); }
    core::EffectiveValue operator()(std::uint64_t /*planned*/) const { return value.get<std::uint64_t>(); }
    core::EffectiveValue operator()(const std::string& /*planned*/) const { return value.get<std::string>(); }
    core::EffectiveValue operator()(const std::vector<std::string>& /*planned*/) const
    {
        return value.get<std::vector<std::string>>();
    }
    core::EffectiveValue operator()(const core::AddressList& /*planned*/) const
    {
        return to_address_list(value.get<AddressWire>());
    }
    core::EffectiveValue operator()(const core::ExecCommand& /*planned*/) const
    {
        return to_exec_command(value.get<ExecWire>());
    }
    core::EffectiveValue operator()(const core::NameList& /*planned*/) const
    {
        const auto wire = value.get<NameListWire>();
        return core::NameList{wire.get<0>(), wire.get<1>()};
    }
    core::EffectiveValue operator()(const core::ErrorNumber& /*planned*/) const
    {
        return core::ErrorNumber{value.get<std::int32_t>()};
    }
    // Never checked (see core::checked_property_names).
    core::EffectiveValue operator()(core::StdioSlot /*planned*/) const { return std::string(); }
    core::EffectiveValue operator()(const core::PassedDescriptorSlot& /*planned*/) const { return std::string(); }
    core::EffectiveValue operator()(const core::JournalFields& /*planned*/) const { return std::string(); }
};

// The planned properties systemd reported in `all`, in the core's types.
core::EffectiveProperties convert(const AllProperties& all, const core::UnitProperties& planned)
{
    core::EffectiveProperties effective;
    for (const auto& name : core::checked_property_names(planned)) {
        const auto found = all.find(name);
        if (found == all.end()) {
            continue;
        }
        const auto& planned_value = core::find_property(planned, name)->value;
        try {
            effective.emplace(name, std::visit(Convert{found->second}, planned_value));
        } catch (const sdbus::Error&) {
            effective.emplace(name, std::string("(bus type ") + found->second.peekValueType() + ")");
        }
    }
    return effective;
}

} // namespace

core::EffectiveProperties read_effective_properties(sdbus::IConnection& connection, const sdbus::ObjectPath& unit_path,
                                                    const std::string& type_interface,
                                                    const core::UnitProperties& planned)
{
    auto unit = make_proxy(connection, kSystemdService, unit_path);
    auto all = get_all(*unit, type_interface);
    all.merge(get_all(*unit, kUnitInterface));
    return convert(all, planned);
}

EffectivePropertiesRead::EffectivePropertiesRead(sdbus::IConnection& connection, const sdbus::ObjectPath& unit_path,
                                                 const std::string& type_interface, core::UnitProperties planned)
    : planned_(std::move(planned)), unit_(make_proxy(connection, kSystemdService, unit_path))
{
    for (const auto& interface : {type_interface, std::string(kUnitInterface)}) {
        try {
            // Runs from dispatch: only records what arrived.
            get_all_async(*unit_, interface, [this](const std::string& error, AllProperties all) {
                if (!error.empty() && failure_.empty()) {
                    failure_ = error;
                }
                // Only what is checked: a burst has dozens of reads waiting,
                // and a GetAll answer holds a few hundred properties.
                for (const auto& name : core::checked_property_names(planned_)) {
                    auto found = all.extract(name);
                    if (!found.empty()) {
                        all_.insert(std::move(found));
                    }
                }
                --outstanding_;
            });
            ++outstanding_;
        } catch (const sdbus::Error& e) {
            failure_ = e.getMessage(); // result() reports it; ready() once sent calls are in
        }
    }
}

core::EffectiveProperties EffectivePropertiesRead::result() const
{
    if (!failure_.empty()) {
        core::fail(core::ErrorKind::SystemdFailure,
                   "reading the properties of " + std::string(unit_->getObjectPath()) + ": " + failure_);
    }
    return convert(all_, planned_);
}

} // namespace nr::sys
