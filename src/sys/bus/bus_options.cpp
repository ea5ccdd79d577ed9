// SPDX-License-Identifier: Apache-2.0
#include "sys/bus/bus_options.h"

namespace nr::sys {

std::map<std::string, core::OptionValue> option_values(const std::map<std::string, sdbus::Variant>& options)
{
    using Dictionary = std::map<std::string, std::string>;
    std::map<std::string, core::OptionValue> out;
    for (const auto& [key, variant] : options) {
        if (variant.containsValueOfType<std::string>()) {
            out.emplace(key, variant.get<std::string>());
        } else if (variant.containsValueOfType<Dictionary>()) {
            out.emplace(key, variant.get<Dictionary>());
        } else {
            out.emplace(key, core::UnsupportedOptionType{std::string(variant.peekValueType())});
        }
    }
    return out;
}

} // namespace nr::sys
