#include "core/unit_properties.h"

#include <algorithm>

namespace nr::core {

const UnitProperty* find_property(const UnitProperties& properties, const std::string& name)
{
    const auto it =
        std::find_if(properties.begin(), properties.end(), [&](const UnitProperty& p) { return p.name == name; });
    return it == properties.end() ? nullptr : &*it;
}

} // namespace nr::core
