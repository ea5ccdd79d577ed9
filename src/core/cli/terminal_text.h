// SPDX-License-Identifier: Apache-2.0
#pragma once
// Text a session controls (its command lines, its journal messages) printed
// on an operator's terminal. A session could put escape sequences in its
// argv that move the cursor, retitle the window or rewrite earlier lines of
// `status`; so every control character becomes visible text, and a line is
// cut to a width so that one process cannot flood the screen.

#include <cstddef>
#include <string>
#include <string_view>

namespace nr::core {

// `text` with C0 controls (including newline and tab), DEL, C1 controls and
// bytes that are not valid UTF-8 written as \xNN, and a backslash as "\\",
// so the result is printable and can be read back unambiguously. Valid
// printable UTF-8 passes unchanged.
std::string escape_control(std::string_view text);

// /proc/PID/cmdline (arguments each ended by NUL) as one line: the
// arguments separated by spaces, escaped as escape_control() does. An
// argument is not quoted: this is for reading, not for running.
std::string cmdline_text(std::string_view raw);

// Printable `text` (escape_control()'s output) cut to at most `columns`
// code points, the last of them "…" when anything was cut. columns 0: no
// limit.
std::string fit_columns(std::string_view text, std::size_t columns);

} // namespace nr::core
