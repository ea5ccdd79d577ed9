// SPDX-License-Identifier: Apache-2.0
#pragma once
// Resolving a worker-named relative path beneath an allowed root directory
// fd without ever following a link the session could have planted. With
// openat2 the kernel enforces it in one call (RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV); where the
// kernel lacks openat2 the same rules are applied by a walk that opens one
// name at a time with O_NOFOLLOW and compares each st_dev with the root's.

#include <string>
#include <sys/types.h>
#include <vector>

#include "sys/base/unique_fd.h"

namespace nr::sys {

enum class Resolver {
    Openat2, // openat2 with the resolve flags; falls back to Walk on ENOSYS
    Walk,    // O_NOFOLLOW component walk (also what tests force)
};

// Opens `names` (from core::parse_relative_path) beneath `root_fd` with
// `flags` (O_NOFOLLOW and O_CLOEXEC are always added). Refusals:
// a symlink or magic link anywhere, leaving the root or crossing a mount
// -> InvalidPath; a missing name -> NoSuchFile; permission -> AccessDenied.
UniqueFd open_beneath(int root_fd, const std::vector<std::string>& names, int flags,
                      Resolver resolver = Resolver::Openat2);

// Opens the directory that holds the last name, as O_RDONLY|O_DIRECTORY
// (so it can be fsync'ed), under the same rules.
UniqueFd open_parent_beneath(int root_fd, const std::vector<std::string>& names, Resolver resolver = Resolver::Openat2);

// True when this kernel answers openat2 (probed once).
bool kernel_has_openat2();

} // namespace nr::sys
