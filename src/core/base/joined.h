// SPDX-License-Identifier: Apache-2.0
#pragma once
// A list as one line of a message: the items in order, a separator between
// them (none before the first), empty for an empty list.

#include <string>
#include <string_view>
#include <vector>

namespace nr::core {

inline std::string joined(const std::vector<std::string>& items, std::string_view separator)
{
    std::string out;
    for (const auto& item : items) {
        if (!out.empty()) {
            out.append(separator);
        }
        out.append(item);
    }
    return out;
}

} // namespace nr::core
