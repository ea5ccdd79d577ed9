// SPDX-License-Identifier: Apache-2.0
#include "sys/fs/protected_paths.h"

#include "core/base/error.h"
#include "core/base/path_policy.h"
#include "sys/fs/safe_dirs.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace nr::sys {

namespace {

using core::ErrorKind;
using core::fail;

constexpr mode_t kDirectoryMode = 0700;
constexpr mode_t kFileMode = 0600;

[[noreturn]] void refuse(const std::string& shown, const std::string& problem)
{
    fail(ErrorKind::InvalidPath, "protected home path " + shown + " " + problem);
}

struct stat stat_of(int fd, const std::string& shown)
{
    struct stat st {};
    if (fstat(fd, &st) != 0) {
        refuse(shown, std::string("cannot be looked at: ") + std::strerror(errno));
    }
    return st;
}

void require_owner(const struct stat& st, uid_t self, const std::string& shown)
{
    if (st.st_uid != self) {
        refuse(shown, "is owned by uid " + std::to_string(st.st_uid) + ", not the session user");
    }
}

// mkdirat and O_EXCL never follow a symlink at the name: one that is there
// already (dangling or not) gives EEXIST and is refused by the open below.
void create_if_missing(int parent, const std::string& name, bool directory, const std::string& shown)
{
    if (directory) {
        if (mkdirat(parent, name.c_str(), kDirectoryMode) != 0 && errno != EEXIST) {
            refuse(shown, std::string("cannot be created: ") + std::strerror(errno));
        }
        return;
    }
    const int fd = openat(parent, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, kFileMode);
    if (fd >= 0) {
        close(fd);
    } else if (errno != EEXIST) {
        refuse(shown, std::string("cannot be created: ") + std::strerror(errno));
    }
}

UniqueFd open_directory_on_the_way(int parent, const std::string& name, uid_t self, const std::string& shown)
{
    create_if_missing(parent, name, true, shown);
    UniqueFd fd(openat(parent, name.c_str(), O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) {
        const int err = errno;
        if (err == ELOOP || err == ENOTDIR) {
            refuse(shown, "is a symlink or not a directory");
        }
        refuse(shown, std::string("cannot be opened: ") + std::strerror(err));
    }
    require_owner(stat_of(fd.get(), shown), self, shown);
    return fd;
}

UniqueFd open_protected(int parent, const std::string& name, bool directory, uid_t self, const std::string& shown)
{
    create_if_missing(parent, name, directory, shown);
    // O_PATH|O_NOFOLLOW opens a symlink itself rather than failing, so the
    // kind is read from the descriptor.
    UniqueFd fd(openat(parent, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) {
        refuse(shown, std::string("cannot be opened: ") + std::strerror(errno));
    }
    const auto st = stat_of(fd.get(), shown);
    if (S_ISLNK(st.st_mode)) {
        refuse(shown, "is a symlink");
    }
    if (directory && !S_ISDIR(st.st_mode)) {
        refuse(shown, "is not a directory, and the adapter protects a directory there");
    }
    if (!directory && !S_ISREG(st.st_mode)) {
        refuse(shown, "is not a regular file, and the adapter protects a file there");
    }
    require_owner(st, self, shown);
    // Another name of the same file would stay writable beside the
    // read-only mount.
    if (!directory && st.st_nlink != 1) {
        refuse(shown, "has " + std::to_string(st.st_nlink) + " hard links");
    }
    return fd;
}

// "a/b/c" -> {"a/b", "c"}; "c" -> {"", "c"}.
std::pair<std::string, std::string> split_last(const std::string& relative)
{
    const auto slash = relative.rfind('/');
    if (slash == std::string::npos) {
        return {"", relative};
    }
    return {relative.substr(0, slash), relative.substr(slash + 1)};
}

} // namespace

std::vector<ProtectedMount> open_protected_paths(const core::ProtectedPaths& protection)
{
    std::vector<ProtectedMount> mounts;
    if (protection.paths.empty()) {
        return mounts;
    }
    const uid_t self = geteuid();
    const auto home = open_directory_no_symlinks(protection.base, self);
    if (stat_of(home.get(), protection.base).st_uid != self) {
        fail(ErrorKind::InvalidPath, "the home " + protection.base + " is not owned by the session user");
    }
    // Each directory is opened once, from its parent's descriptor, and its
    // children from its own: what bwrap mounts is what was walked.
    std::map<std::string, int, std::less<>> directories{{"", home.get()}};
    for (const auto& ancestor : core::protected_ancestors(protection.paths)) {
        const auto [parent, name] = split_last(ancestor);
        const auto shown = core::join_path(protection.base, ancestor);
        auto fd = open_directory_on_the_way(directories.at(parent), name, self, shown);
        directories[ancestor] = fd.get();
        mounts.push_back({shown, false, std::move(fd)});
    }
    for (const auto& path : protection.paths) {
        const auto [parent, name] = split_last(path.relative);
        const auto shown = core::join_path(protection.base, path.relative);
        mounts.push_back({shown, true, open_protected(directories.at(parent), name, path.directory, self, shown)});
    }
    return mounts;
}

void add_protected_descriptors(const core::ProtectedPaths& protection, const std::vector<ProtectedMount>& mounts,
                               core::MountDescriptors& descriptors)
{
    for (const auto& mount : mounts) {
        (mount.read_only ? descriptors.read_only : descriptors.read_write)[mount.path] = mount.fd.get();
    }
    descriptors.descriptors_only_beneath = protection.base;
}

} // namespace nr::sys
