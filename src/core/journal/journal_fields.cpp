// SPDX-License-Identifier: Apache-2.0
#include "core/journal/journal_fields.h"

namespace nr::core {

std::string journal_field(const std::vector<std::string>& fields, std::string_view name)
{
    for (const auto& field : fields) {
        if (field.size() > name.size() && field.starts_with(name) && field[name.size()] == '=') {
            return field.substr(name.size() + 1);
        }
    }
    return {};
}

} // namespace nr::core
