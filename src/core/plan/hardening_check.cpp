// SPDX-License-Identifier: Apache-2.0
#include "core/plan/hardening_check.h"

#include "core/base/joined.h"

#include <algorithm>
#include <array>
#include <limits>
#include <string_view>

namespace nr::core {

namespace {

// Descriptors are not read back: systemd cannot report them, and a launcher
// planned to take its spec over the helper channel refuses to run without it.
constexpr std::array kNotChecked = {std::string_view("Description"),
                                    std::string_view("LogExtraFields"),
                                    std::string_view("StandardInputFileDescriptor"),
                                    std::string_view("StandardOutputFileDescriptor"),
                                    std::string_view("StandardErrorFileDescriptor"),
                                    std::string_view("ExtraFileDescriptors")};
constexpr std::array kUpperLimits = {std::string_view("MemoryMax"), std::string_view("TasksMax"),
                                     std::string_view("CPUQuotaPerSecUSec"), std::string_view("RuntimeMaxUSec")};
constexpr std::array kCapabilityMasks = {std::string_view("CapabilityBoundingSet"),
                                         std::string_view("AmbientCapabilities")};

template <std::size_t N> bool listed(const std::array<std::string_view, N>& names, std::string_view name)
{
    return std::find(names.begin(), names.end(), name) != names.end();
}

struct Describe {
    std::string operator()(bool value) const { return value ? "yes" : "no"; }
    std::string operator()(std::uint64_t value) const
    {
        return value == std::numeric_limits<std::uint64_t>::max() ? "infinity" : std::to_string(value);
    }
    std::string operator()(const std::string& value) const { return value; }
    std::string operator()(const std::vector<std::string>& value) const { return joined(value, " "); }
    std::string operator()(const AddressList& value) const
    {
        std::vector<std::string> items;
        for (const auto& prefix : value.prefixes) {
            items.push_back(format_ip_prefix(prefix));
        }
        return items.empty() ? "(none)" : joined(items, " ");
    }
    std::string operator()(const ExecCommand& value) const { return value.path + " [" + joined(value.argv, " ") + "]"; }
    std::string operator()(StdioSlot /*slot*/) const { return "(stdio slot)"; }
    std::string operator()(const PassedDescriptorSlot& slot) const { return "(descriptor " + slot.name + ")"; }
    std::string operator()(const JournalFields& value) const { return joined(value.fields, " "); }
    std::string operator()(const NameList& value) const
    {
        return std::string(value.allow_list ? "only " : "~") +
               (value.names.empty() ? "(none)" : joined(value.names, " "));
    }
    std::string operator()(const ErrorNumber& value) const { return std::to_string(value.value); }
};

bool contains_prefix(const AddressList& list, const IpPrefix& prefix)
{
    return std::find(list.prefixes.begin(), list.prefixes.end(), prefix) != list.prefixes.end();
}

bool all_within(const AddressList& items, const AddressList& allowed)
{
    return std::all_of(items.prefixes.begin(), items.prefixes.end(),
                       [&](const IpPrefix& prefix) { return contains_prefix(allowed, prefix); });
}

bool all_listed(const std::vector<std::string>& names, const std::vector<std::string>& in)
{
    return std::all_of(names.begin(), names.end(),
                       [&](const std::string& name) { return std::find(in.begin(), in.end(), name) != in.end(); });
}

// True when `effective` gives at least the protection `planned` asked for.
bool holds(const std::string& name, const PropertyValue& planned, const EffectiveValue& effective)
{
    if (const auto* limit = std::get_if<std::uint64_t>(&planned)) {
        const auto* actual = std::get_if<std::uint64_t>(&effective);
        if (actual == nullptr) {
            return false;
        }
        if (listed(kUpperLimits, name)) {
            return *actual <= *limit;
        }
        if (listed(kCapabilityMasks, name)) {
            return (*actual & ~*limit) == 0;
        }
        return *actual == *limit;
    }
    if (const auto* flag = std::get_if<bool>(&planned)) {
        const auto* actual = std::get_if<bool>(&effective);
        return actual != nullptr && *actual == *flag;
    }
    if (const auto* addresses = std::get_if<AddressList>(&planned)) {
        const auto* actual = std::get_if<AddressList>(&effective);
        if (actual == nullptr) {
            return false;
        }
        // Deny may only grow; allow may only shrink.
        return name == "IPAddressAllow" ? all_within(*actual, *addresses) : all_within(*addresses, *actual);
    }
    if (const auto* text = std::get_if<std::string>(&planned)) {
        const auto* actual = std::get_if<std::string>(&effective);
        return actual != nullptr && *actual == *text;
    }
    if (const auto* list = std::get_if<std::vector<std::string>>(&planned)) {
        const auto* actual = std::get_if<std::vector<std::string>>(&effective);
        return actual != nullptr && *actual == *list;
    }
    if (const auto* list = std::get_if<NameList>(&planned)) {
        const auto* actual = std::get_if<NameList>(&effective);
        if (actual == nullptr || actual->allow_list != list->allow_list) {
            return false;
        }
        return list->allow_list ? all_listed(actual->names, list->names) : all_listed(list->names, actual->names);
    }
    if (const auto* number = std::get_if<ErrorNumber>(&planned)) {
        const auto* actual = std::get_if<ErrorNumber>(&effective);
        return actual != nullptr && *actual == *number;
    }
    if (const auto* command = std::get_if<ExecCommand>(&planned)) {
        const auto* actual = std::get_if<ExecCommand>(&effective);
        return actual != nullptr && actual->path == command->path && actual->argv == command->argv;
    }
    return false;
}

} // namespace

std::vector<std::string> checked_property_names(const UnitProperties& planned)
{
    std::vector<std::string> names;
    for (const auto& property : planned) {
        if (!listed(kNotChecked, property.name)) {
            names.push_back(property.name);
        }
    }
    return names;
}

std::optional<Weakening> find_weakening(const UnitProperties& planned, const EffectiveProperties& effective)
{
    for (const auto& name : checked_property_names(planned)) {
        const auto& want = find_property(planned, name)->value;
        const auto got = effective.find(name);
        if (got == effective.end()) {
            return Weakening{name, std::visit(Describe{}, want), "(not reported by systemd)"};
        }
        if (!holds(name, want, got->second)) {
            return Weakening{name, std::visit(Describe{}, want), std::visit(Describe{}, got->second)};
        }
    }
    return std::nullopt;
}

} // namespace nr::core
