// SPDX-License-Identifier: Apache-2.0
#include "sys/fs/beneath.h"

#include "core/base/error.h"
#include "core/base/relative_path.h"

#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>

namespace nr::sys {

namespace {

using core::ErrorKind;
using core::fail;

constexpr unsigned kResolveFlags = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
// openat2 answers EAGAIN when a concurrent rename might have let a lookup
// escape; it is retried a few times, then treated as a changed tree.
constexpr int kEagainRetries = 8;

[[noreturn]] void refuse(int err, const std::string& shown)
{
    switch (err) {
    case ENOENT: fail(ErrorKind::NoSuchFile, shown + " does not exist");
    case ELOOP: fail(ErrorKind::InvalidPath, shown + " is or passes through a symlink");
    case EXDEV: fail(ErrorKind::InvalidPath, shown + " leaves the allowed root or crosses a mount");
    case ENOTDIR: fail(ErrorKind::InvalidPath, shown + " passes through something that is not a directory");
    case EACCES:
    case EPERM: fail(ErrorKind::AccessDenied, shown + ": permission denied");
    case EISDIR: fail(ErrorKind::UnsafeFile, shown + " is a directory");
    case EAGAIN: fail(ErrorKind::FileChanged, shown + " changed while it was being resolved");
    default: fail(ErrorKind::InvalidPath, "cannot open " + shown + ": " + std::strerror(err));
    }
}

dev_t device_of(int fd, const std::string& shown)
{
    struct stat st {};
    if (fstat(fd, &st) != 0) {
        refuse(errno, shown);
    }
    return st.st_dev;
}

long raw_openat2(int dirfd, const std::string& path, int flags)
{
    open_how how{};
    how.flags = static_cast<std::uint64_t>(flags | O_NOFOLLOW | O_CLOEXEC);
    how.resolve = kResolveFlags;
    return syscall(SYS_openat2, dirfd, path.c_str(), &how, sizeof how);
}

UniqueFd open_with_openat2(int root_fd, const std::vector<std::string>& names, int flags)
{
    const auto path = core::join_components(names);
    for (int attempt = 0;; ++attempt) {
        const long fd = raw_openat2(root_fd, path, flags);
        if (fd >= 0) {
            return UniqueFd(static_cast<int>(fd));
        }
        if (errno != EAGAIN || attempt >= kEagainRetries) {
            refuse(errno, path);
        }
    }
}

// Each directory on the way is opened O_PATH|O_NOFOLLOW|O_DIRECTORY from
// the previous one's fd and must sit on the root's device (RESOLVE_NO_XDEV);
// the names themselves cannot be "..", so nothing can climb out.
UniqueFd open_with_walk(int root_fd, const std::vector<std::string>& names, int flags)
{
    const auto root_dev = device_of(root_fd, ".");
    UniqueFd current;
    int dirfd = root_fd;
    std::string shown;
    for (std::size_t i = 0; i + 1 < names.size(); ++i) {
        shown += (shown.empty() ? "" : "/") + names[i];
        const int fd = openat(dirfd, names[i].c_str(), O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
            refuse(errno == ENOTDIR ? ELOOP : errno, shown);
        }
        current = UniqueFd(fd);
        if (device_of(current.get(), shown) != root_dev) {
            fail(ErrorKind::InvalidPath, shown + " is a mount point");
        }
        dirfd = current.get();
    }
    shown += (shown.empty() ? "" : "/") + names.back();
    const int fd = openat(dirfd, names.back().c_str(), flags | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        // O_NOFOLLOW on a final symlink: ELOOP, or ENOTDIR with O_DIRECTORY.
        refuse(errno == ENOTDIR && (flags & O_DIRECTORY) != 0 ? ELOOP : errno, shown);
    }
    UniqueFd out(fd);
    struct stat st {};
    if (fstat(out.get(), &st) != 0) {
        refuse(errno, shown);
    }
    if (S_ISLNK(st.st_mode)) {
        refuse(ELOOP, shown); // O_PATH|O_NOFOLLOW opens the link itself
    }
    // Only a directory can be a mount point an unprivileged session could
    // have arranged; a non-directory's st_dev is not its mount's on
    // overlayfs (it reports the layer's device), so it is not compared.
    if (S_ISDIR(st.st_mode) && st.st_dev != root_dev) {
        fail(ErrorKind::InvalidPath, shown + " is a mount point");
    }
    return out;
}

} // namespace

bool kernel_has_openat2()
{
    static const bool has = [] {
        const long fd = raw_openat2(AT_FDCWD, "/", O_PATH | O_DIRECTORY);
        if (fd >= 0) {
            close(static_cast<int>(fd));
            return true;
        }
        return errno != ENOSYS;
    }();
    return has;
}

UniqueFd open_beneath(int root_fd, const std::vector<std::string>& names, int flags, Resolver resolver)
{
    if (names.empty()) {
        fail(ErrorKind::InvalidPath, "an empty relative path names no file");
    }
    if (resolver == Resolver::Openat2 && kernel_has_openat2()) {
        return open_with_openat2(root_fd, names, flags);
    }
    return open_with_walk(root_fd, names, flags);
}

UniqueFd open_parent_beneath(int root_fd, const std::vector<std::string>& names, Resolver resolver)
{
    if (names.empty()) {
        fail(ErrorKind::InvalidPath, "an empty relative path names no file");
    }
    if (names.size() == 1) {
        const int fd = openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
            refuse(errno, ".");
        }
        return UniqueFd(fd);
    }
    const std::vector<std::string> parent(names.begin(), names.end() - 1);
    return open_beneath(root_fd, parent, O_RDONLY | O_DIRECTORY, resolver);
}

} // namespace nr::sys
