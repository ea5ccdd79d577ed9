// SPDX-License-Identifier: Apache-2.0
#pragma once
// Checks native-runtimectl makes on its own command line before it calls
// anyone, so that a value no bus call could carry is a usage error (64)
// and not whatever the bus library would make of it.

#include <string_view>

namespace nr::core {

// Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
// above U+10FFFF) without NUL: what a D-Bus string may hold.
bool is_bus_string(std::string_view text);

// Throws Error(InvalidArgument) naming `what` when `text` is no bus string.
// The message does not repeat the text, which may not be printable.
void validate_bus_string(std::string_view what, std::string_view text);

// `--env NAME=VALUE` or `--env NAME`: a non-empty name, both bus strings.
void validate_env_argument(std::string_view item);

} // namespace nr::core
