// SPDX-License-Identifier: Apache-2.0
#pragma once
// Lexical rules for a path relative to an allowed root (an owner's home or
// a chat's workspace), as the worker names files it wants read or written.
// The path arrives from model-controlled state, so nothing is normalised:
// a form that could step outside the root or mean two things is refused,
// and what was validated is exactly the list of names the resolver opens.

#include <string>
#include <string_view>
#include <vector>

namespace nr::core {

inline constexpr std::size_t kMaxRelativePathLength = 4095;
inline constexpr std::size_t kMaxNameLength = 255;

// "src/main.c" -> {"src", "main.c"}. Refused with Error(InvalidPath) naming
// `what`: empty; absolute; longer than 4095 bytes; an empty component (a
// leading, doubled or trailing '/'); "." or ".."; a component longer than
// 255 bytes; NUL or any other control character.
std::vector<std::string> parse_relative_path(std::string_view path, std::string_view what);

// The canonical text of validated components: joined with '/'.
std::string join_components(const std::vector<std::string>& components);

} // namespace nr::core
