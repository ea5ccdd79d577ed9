// SPDX-License-Identifier: Apache-2.0
#include "sys/fs/safe_dirs.h"

#include "core/base/error.h"
#include "core/base/path_policy.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nr::sys {

namespace {

using core::ErrorKind;
using core::fail;

constexpr mode_t kPrivateDirMode = 0700;

struct stat stat_fd(int fd, const std::string& path)
{
    struct stat st {};
    if (fstat(fd, &st) != 0) {
        fail(ErrorKind::InvalidPath, "cannot stat " + path + ": " + std::strerror(errno));
    }
    return st;
}

UniqueFd open_component(int dirfd, const std::string& name, const std::string& shown)
{
    const int fd = openat(dirfd, name.c_str(), O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        if (err == ENOTDIR || err == ELOOP) {
            fail(ErrorKind::InvalidPath, shown + " is a symlink or not a directory");
        }
        fail(ErrorKind::InvalidPath, "cannot open " + shown + ": " + std::strerror(err));
    }
    return UniqueFd(fd);
}

bool writable_by_others(const struct stat& st)
{
    return (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
}

void check_ancestor(const struct stat& st, const std::string& shown, uid_t owner_uid)
{
    if (st.st_uid != 0 && st.st_uid != owner_uid) {
        fail(ErrorKind::InvalidPath,
             shown + " is owned by uid " + std::to_string(st.st_uid) + ", neither root nor the session user");
    }
    if (writable_by_others(st) && (st.st_mode & S_ISVTX) == 0) {
        fail(ErrorKind::InvalidPath, shown + " is group- or world-writable without the sticky bit");
    }
}

} // namespace

UniqueFd open_directory_no_symlinks(const std::string& path, uid_t owner_uid)
{
    core::validate_absolute_path(path, "path");
    UniqueFd current(open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!current.valid()) {
        fail(ErrorKind::InvalidPath, std::string("cannot open /: ") + std::strerror(errno));
    }
    std::string shown;
    for (const auto& component : core::path_components(path)) {
        check_ancestor(stat_fd(current.get(), shown.empty() ? "/" : shown), shown.empty() ? "/" : shown, owner_uid);
        shown += "/" + component;
        current = open_component(current.get(), component, shown);
    }
    return current;
}

core::CheckedDir check_owned_directory(const std::string& path, uid_t uid, const std::string& what)
{
    const auto fd = open_directory_no_symlinks(path, uid);
    const auto st = stat_fd(fd.get(), path);
    if (st.st_uid != uid) {
        fail(ErrorKind::InvalidPath, what + " " + path + " is not owned by the session user");
    }
    if (writable_by_others(st)) {
        fail(ErrorKind::InvalidPath, what + " " + path + " is group- or world-writable");
    }
    return {path, static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

UniqueFd open_checked_directory(const core::CheckedDir& checked)
{
    auto fd = open_directory_no_symlinks(checked.path, geteuid());
    const auto st = stat_fd(fd.get(), checked.path);
    if (static_cast<std::uint64_t>(st.st_dev) != checked.device ||
        static_cast<std::uint64_t>(st.st_ino) != checked.inode) {
        fail(ErrorKind::InvalidPath, checked.path + " is no longer the directory the helper checked");
    }
    return fd;
}

void ensure_private_dirs(const std::string& base, const std::vector<std::string>& relative)
{
    const uid_t self = geteuid();
    for (const auto& rel : relative) {
        auto current = open_directory_no_symlinks(base, self);
        std::string shown = base;
        for (const auto& component : core::path_components(rel)) {
            if (component == "." || component == "..") {
                fail(ErrorKind::InvalidPath, "private directory " + rel + " is not canonical");
            }
            shown += "/" + component;
            if (mkdirat(current.get(), component.c_str(), kPrivateDirMode) != 0 && errno != EEXIST) {
                fail(ErrorKind::InvalidPath, "cannot create " + shown + ": " + std::strerror(errno));
            }
            current = open_component(current.get(), component, shown);
            const auto st = stat_fd(current.get(), shown);
            if (st.st_uid != self) {
                fail(ErrorKind::InvalidPath,
                     shown + " is owned by uid " + std::to_string(st.st_uid) + ", not the session user");
            }
            if (writable_by_others(st)) {
                fail(ErrorKind::InvalidPath, shown + " is group- or world-writable");
            }
        }
    }
}

} // namespace nr::sys
