// SPDX-License-Identifier: Apache-2.0
#pragma once
// native-runtimectl's JSON, written by nlohmann-json rather than by hand so
// that every output parses. Keys keep the order they were added in.
//
// Text that is not valid UTF-8 (a journal field, a file name) cannot be a
// JSON string: each invalid byte is replaced by U+FFFD, the Unicode
// replacement character, as docs/man/native-runtimectl.1.md says.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace nr::core {

using Json = nlohmann::ordered_json;

// --json (short: one line), --json=short, --json=pretty (indented).
enum class JsonStyle { Short, Pretty };

// The value of --json: empty or "short" -> Short, "pretty" -> Pretty;
// anything else throws Error(InvalidArgument).
JsonStyle json_style(std::string_view value);

// One JSON text without a trailing newline.
std::string json_text(const Json& value, JsonStyle style);

} // namespace nr::core
