// SPDX-License-Identifier: Apache-2.0
#pragma once
// Probe verbs for filesystem escapes and identity; see escapes.cpp.

#include <string>

namespace nr::probe {

// Tries to reach PATH directly, through a symlink and a hard link made in
// the current directory, through a child process, and by overwriting it.
// Prints exists=, read_direct=, via_symlink=, via_hardlink=, via_child=,
// overwrite= lines.
int verb_escape(const std::string& path);

// Prints uid= and euid=.
int verb_ids();

} // namespace nr::probe
