// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reading and replacing files in a tree that model-controlled code can
// change at any moment, on behalf of a more privileged caller. Every name
// is resolved beneath an allowed root's directory fd (sys/fs/beneath.h); what
// is read is one pinned inode; what is written never goes through a path
// that could be a link, and never truncates an existing file.

#include <cstdint>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <vector>

#include "sys/fs/beneath.h"

namespace nr::sys {

struct FileSnapshot {
    std::string data;
    struct stat st {};
};

// Reads the regular file at `names` beneath `root_fd` in one consistent
// state: opened with O_NOFOLLOW|O_NONBLOCK (a FIFO cannot block us), fstat
// before and after the read must agree on device, inode, size, mtime and
// ctime, and the bytes read must equal the size. Refusals: not a regular
// file or more than one hard link -> UnsafeFile (copying a multiply linked
// file could hand over a disclosure prepared through the other link);
// larger than `max_bytes` -> FileTooLarge; changed while read -> FileChanged;
// plus everything open_beneath refuses.
FileSnapshot read_file_beneath(int root_fd, const std::vector<std::string>& names, std::uint64_t max_bytes,
                               Resolver resolver = Resolver::Openat2);

// Replaces (or creates) the file at `names` with `data`: a new temporary
// file in the same directory fd, written, fchmod'ed to `mode` on the fd,
// fsync'ed, renamed over the name with renameat, and the directory fsync'ed.
// An existing entry that is a symlink or not a regular file is refused
// (InvalidPath / UnsafeFile) rather than replaced. Returns the new file's
// stat.
struct stat replace_file_beneath(int root_fd, const std::vector<std::string>& names, std::string_view data, mode_t mode,
                                 Resolver resolver = Resolver::Openat2);

// Removes the regular file at `names` (the revert of a creation): the
// parent is opened beneath the root, the entry is looked at without
// following it and must still be a regular file with device and inode
// `device`/`inode` (FileChanged otherwise: replaced since it was checked),
// then unlinkat in that directory fd and fsync of the directory. Never
// follows a link and never removes a directory; a missing entry is
// NoSuchFile.
void remove_file_beneath(int root_fd, const std::vector<std::string>& names, std::uint64_t device, std::uint64_t inode,
                         Resolver resolver = Resolver::Openat2);

// The permission bits to give a replacement: the existing regular file's
// (without set-id or sticky bits), or `fallback` when there is none.
mode_t replacement_mode(int root_fd, const std::vector<std::string>& names, mode_t fallback,
                        Resolver resolver = Resolver::Openat2);

// Test hook: called between the first fstat and the read, so unit tests can
// change the file at exactly that moment. Null in production.
using BetweenOpenAndRead = void (*)(int fd);
void set_between_open_and_read_hook(BetweenOpenAndRead hook);

} // namespace nr::sys
