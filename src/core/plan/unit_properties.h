// SPDX-License-Identifier: Apache-2.0
#pragma once
// Transient unit properties as typed data. The adapter marshals them to the
// a(sv) array of StartTransientUnit; the helper later reads the same names
// back from systemd to confirm they were applied. Nothing secret may ever be
// placed here: any local user can read a unit's properties.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/base/network_policy.h"

namespace nr::core {

struct ExecCommand {
    std::string path;
    std::vector<std::string> argv;
};

enum class StdioSlot { Input, Output, Error };

// ExtraFileDescriptors= is a(hs) on the bus: the adapter supplies the
// descriptor for the one name planned here (core::kHelperChannelName).
struct PassedDescriptorSlot {
    std::string name;

    bool operator==(const PassedDescriptorSlot&) const = default;
};

// LogExtraFields is aay on the bus; each entry is FIELD=value.
struct JournalFields {
    std::vector<std::string> fields;
};

// IPAddressAllow=/IPAddressDeny= are a(iayu) on the bus.
struct AddressList {
    std::vector<IpPrefix> prefixes;
};

// SystemCallFilter= and RestrictAddressFamilies= are (bas) on the bus: the
// names are an allow list when the flag is set, a deny list otherwise.
struct NameList {
    bool allow_list = false;
    std::vector<std::string> names;

    bool operator==(const NameList&) const = default;
};

// SystemCallErrorNumber= is i on the bus.
struct ErrorNumber {
    std::int32_t value = 0;

    bool operator==(const ErrorNumber&) const = default;
};

using PropertyValue = std::variant<bool, std::uint64_t, std::string, std::vector<std::string>, ExecCommand, StdioSlot,
                                   PassedDescriptorSlot, JournalFields, AddressList, NameList, ErrorNumber>;

struct UnitProperty {
    std::string name;
    PropertyValue value;
};

using UnitProperties = std::vector<UnitProperty>;

// Returns the property or nullptr.
const UnitProperty* find_property(const UnitProperties& properties, const std::string& name);

// Adds NAME=value to LogExtraFields, creating the property if needed.
void add_journal_field(UnitProperties& properties, const std::string& field);

} // namespace nr::core
