// SPDX-License-Identifier: Apache-2.0
#pragma once
// The launcher's side of protected home paths (core/launch/protected_paths.h):
// as the session user, before bwrap, each path and each directory on the
// way to it is created when missing and opened without following a
// symlink, so that bwrap mounts exactly what was checked here. A session
// of the same owner could have planted anything in the shared home: a
// symlink to somewhere else, a FIFO where a file belongs, a second hard
// link it can still write through. All of that is refused, and the session
// does not start.

#include <string>
#include <vector>

#include "core/launch/protected_paths.h"
#include "core/launch/sandbox_args.h"
#include "sys/base/unique_fd.h"

namespace nr::sys {

// One descriptor for bwrap: a protected path (mounted read-only) or a
// directory between the home and one (bound onto itself).
struct ProtectedMount {
    std::string path; // absolute: the base and the relative path
    bool read_only = false;
    UniqueFd fd; // O_PATH
};

// Opens `protection.base` by a walk from "/" that follows no symlink
// (sys/fs/safe_dirs.h) and requires it to be owned by the calling user. Then,
// parents first, each directory on the way to a protected path: created
// 0700 when missing; refused when it is a symlink, not a directory or not
// owned by the calling user. Then each protected path: created when
// missing, as an empty 0600 file (O_CREAT|O_EXCL|O_NOFOLLOW) or a 0700
// directory; opened O_PATH|O_NOFOLLOW and refused when it is a symlink,
// not the declared kind (a regular file, or a directory), not owned by the
// calling user, or a file with more than one hard link. Existing content
// is never changed. Every refusal is Error(InvalidPath) naming the path.
// The directories come first in the result, parents before children.
std::vector<ProtectedMount> open_protected_paths(const core::ProtectedPaths& protection);

// Hands the opened descriptors to core::bind_from_descriptors: each by its
// path, read-only or read-write as it is mounted, and the home as the
// directory beneath which nothing may be mounted by name.
void add_protected_descriptors(const core::ProtectedPaths& protection, const std::vector<ProtectedMount>& mounts,
                               core::MountDescriptors& descriptors);

} // namespace nr::sys
