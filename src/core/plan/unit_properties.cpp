// SPDX-License-Identifier: Apache-2.0
#include "core/plan/unit_properties.h"

#include <algorithm>

namespace nr::core {

const UnitProperty* find_property(const UnitProperties& properties, const std::string& name)
{
    const auto it =
        std::find_if(properties.begin(), properties.end(), [&](const UnitProperty& p) { return p.name == name; });
    return it == properties.end() ? nullptr : &*it;
}

void add_journal_field(UnitProperties& properties, const std::string& field)
{
    for (auto& property : properties) {
        if (auto* fields = std::get_if<JournalFields>(&property.value); property.name == "LogExtraFields" && fields) {
            fields->fields.push_back(field);
            return;
        }
    }
    properties.push_back({"LogExtraFields", JournalFields{{field}}});
}

} // namespace nr::core
