// SPDX-License-Identifier: Apache-2.0
#include "core/cli/json_output.h"

#include "core/base/error.h"

namespace nr::core {

namespace {

constexpr int kPrettyIndent = 2;

} // namespace

JsonStyle json_style(std::string_view value)
{
    if (value.empty() || value == "short") {
        return JsonStyle::Short;
    }
    if (value == "pretty") {
        return JsonStyle::Pretty;
    }
    fail(ErrorKind::InvalidArgument, "--json takes short or pretty");
}

std::string json_text(const Json& value, JsonStyle style)
{
    // ensure_ascii=false keeps valid UTF-8 as it is; error_handler replace
    // turns every invalid byte into U+FFFD instead of throwing.
    return value.dump(style == JsonStyle::Pretty ? kPrettyIndent : -1, ' ', false, Json::error_handler_t::replace);
}

} // namespace nr::core
