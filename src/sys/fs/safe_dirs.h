// SPDX-License-Identifier: Apache-2.0
#pragma once
// Directory checks that never follow symlinks. Paths are walked from "/" one
// component at a time with O_PATH|O_NOFOLLOW|O_DIRECTORY on the previous
// component's fd, so a symlink anywhere on the way is refused instead of
// being resolved by the kernel on our behalf.

#include <string>
#include <sys/types.h>
#include <vector>

#include "core/launch/launch_spec.h"
#include "sys/base/unique_fd.h"

namespace nr::sys {

// Opens `path` (absolute, canonical) as an O_PATH directory fd. Every
// ancestor must be a real directory that is owned by root or `owner_uid` and
// is not group/world-writable unless sticky. Throws core::Error(InvalidPath).
UniqueFd open_directory_no_symlinks(const std::string& path, uid_t owner_uid);

// A directory the session will get read-write (a requested workspace, a
// provider session directory): reachable without symlinks, owned by `uid`,
// not writable by group or others. `what` names it in errors. Returns its
// identity as checked, which the launcher later insists on. Throws
// InvalidPath.
core::CheckedDir check_owned_directory(const std::string& path, uid_t uid, const std::string& what);

// The launcher's side: opens `checked.path` again with the same walk, as
// the calling user, and returns the descriptor only if it is the directory
// the helper checked (same device and inode). Throws InvalidPath otherwise,
// e.g. when a path component was swapped in between.
UniqueFd open_checked_directory(const core::CheckedDir& checked);

// Creates base/relative[i] component by component as the calling user with
// mode 0700. Existing components must be directories owned by the caller and
// not writable by group or others. Throws InvalidPath.
void ensure_private_dirs(const std::string& base, const std::vector<std::string>& relative);

} // namespace nr::sys
