// SPDX-License-Identifier: Apache-2.0
#pragma once
// Lexical rules for absolute paths. These run before any filesystem access:
// a path that is not already in canonical form is refused rather than
// normalised, so what was validated is exactly what gets mounted.

#include <string>
#include <string_view>
#include <vector>

namespace nr::core {

// Absolute, no empty, "." or ".." components, no trailing slash (except "/"),
// no NUL/control characters, at most 4096 bytes. Throws Error(InvalidPath)
// naming `what`.
void validate_absolute_path(std::string_view path, std::string_view what);

// True when `inner` equals `outer` or lies beneath it (component-wise, so
// /srv/ab is not inside /srv/a).
bool path_is_within(std::string_view inner, std::string_view outer);

// True when either path is within the other.
bool paths_overlap(std::string_view a, std::string_view b);

// "/a/b/c" -> {"a", "b", "c"}; expects a validated path.
std::vector<std::string> path_components(std::string_view path);

std::string join_path(std::string_view base, std::string_view relative);

} // namespace nr::core
