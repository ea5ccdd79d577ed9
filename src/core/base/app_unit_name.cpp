// SPDX-License-Identifier: Apache-2.0
#include "core/base/app_unit_name.h"

#include "core/base/error.h"

#include <algorithm>
#include <string>

namespace nr::core {

namespace {

constexpr std::size_t kMaxUnitNameLength = 255; // systemd's UNIT_NAME_MAX - 1
constexpr std::string_view kServiceSuffix = ".service";

bool is_unit_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ':' || c == '_' ||
           c == '.' || c == '\\' || c == '-' || c == '@';
}

} // namespace

void validate_app_unit_name(std::string_view unit)
{
    const std::string shown(unit);
    if (unit.size() <= kServiceSuffix.size() || unit.size() > kMaxUnitNameLength || !unit.ends_with(kServiceSuffix)) {
        fail(ErrorKind::InvalidArgument, "unit " + shown + ": expected a name ending in .service");
    }
    if (unit.front() == '.' || unit.front() == '@' || unit.front() == '-' ||
        !std::all_of(unit.begin(), unit.end(), is_unit_name_char) || std::count(unit.begin(), unit.end(), '@') > 1) {
        fail(ErrorKind::InvalidArgument, "unit " + shown + ": not a valid systemd unit name");
    }
    // Sessions and the helper are configured by this project itself; a
    // drop-in on them would be a second, conflicting source of settings.
    if (unit.starts_with("native-runtime")) {
        fail(ErrorKind::InvalidArgument, "unit " + shown + ": is one of native-runtime's own units");
    }
}

} // namespace nr::core
