// SPDX-License-Identifier: Apache-2.0
#include "core/journal/journal_native.h"

#include "core/base/error.h"
#include "core/journal/log_event.h"

#include <cstdint>

namespace nr::core {

std::string journal_native_payload(const std::vector<std::string>& fields)
{
    std::string out;
    for (const auto& field : fields) {
        const auto equals = field.find('=');
        const std::string_view name = std::string_view(field).substr(0, equals);
        if (equals == std::string::npos || !is_journal_field_name(name)) {
            fail(ErrorKind::InvalidArgument, "not a journal field: '" + std::string(name) + "'");
        }
        const std::string_view value = std::string_view(field).substr(equals + 1);
        if (value.find('\n') == std::string_view::npos) {
            out.append(field).push_back('\n');
            continue;
        }
        out.append(name).push_back('\n');
        auto size = static_cast<std::uint64_t>(value.size());
        for (int byte = 0; byte < 8; ++byte) {
            out.push_back(static_cast<char>(size & 0xffU));
            size >>= 8U;
        }
        out.append(value).push_back('\n');
    }
    return out;
}

} // namespace nr::core
