// SPDX-License-Identifier: Apache-2.0
#include "sys/fs/safe_files.h"

#include "core/base/error.h"
#include "sys/base/random_token.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>

namespace nr::sys {

namespace {

using core::ErrorKind;
using core::fail;

constexpr std::size_t kReadChunk = 65536;
constexpr mode_t kPermissionBits = 0777;

BetweenOpenAndRead between_open_and_read = nullptr;

struct stat stat_of(int fd, const std::string& shown)
{
    struct stat st {};
    if (fstat(fd, &st) != 0) {
        fail(ErrorKind::FileChanged, "cannot stat " + shown + ": " + std::strerror(errno));
    }
    return st;
}

bool same_state(const struct stat& a, const struct stat& b)
{
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size &&
           a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec &&
           a.st_ctim.tv_sec == b.st_ctim.tv_sec && a.st_ctim.tv_nsec == b.st_ctim.tv_nsec && a.st_nlink == b.st_nlink;
}

void check_single_regular(const struct stat& st, const std::string& shown)
{
    if (!S_ISREG(st.st_mode)) {
        fail(ErrorKind::UnsafeFile, shown + " is not a regular file");
    }
    if (st.st_nlink != 1) {
        fail(ErrorKind::UnsafeFile, shown + " has " + std::to_string(st.st_nlink) + " hard links");
    }
}

std::string shown_name(const std::vector<std::string>& names)
{
    std::string out;
    for (const auto& name : names) {
        out += (out.empty() ? "" : "/") + name;
    }
    return out;
}

std::string temporary_name()
{
    constexpr std::size_t kNameBytes = 12;
    return ".nr-write-" + random_hex(kNameBytes, ErrorKind::UnsafeFile, "a temporary name");
}

void write_all(int fd, std::string_view data, const std::string& shown)
{
    while (!data.empty()) {
        const auto n = write(fd, data.data(), data.size());
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            fail(ErrorKind::UnsafeFile, "cannot write " + shown + ": " + std::strerror(errno));
        }
        data.remove_prefix(static_cast<std::size_t>(n));
    }
}

} // namespace

void set_between_open_and_read_hook(BetweenOpenAndRead hook)
{
    between_open_and_read = hook;
}

FileSnapshot read_file_beneath(int root_fd, const std::vector<std::string>& names, std::uint64_t max_bytes,
                               Resolver resolver)
{
    const auto shown = shown_name(names);
    const auto fd = open_beneath(root_fd, names, O_RDONLY | O_NONBLOCK | O_NOCTTY, resolver);
    FileSnapshot out;
    out.st = stat_of(fd.get(), shown);
    check_single_regular(out.st, shown);
    if (static_cast<std::uint64_t>(out.st.st_size) > max_bytes) {
        fail(ErrorKind::FileTooLarge, shown + " is larger than the limit of " + std::to_string(max_bytes) + " bytes");
    }
    if (between_open_and_read != nullptr) {
        between_open_and_read(fd.get());
    }
    // One byte past the size: a file that grew is noticed even when its
    // metadata were restored.
    const auto want = static_cast<std::size_t>(out.st.st_size) + 1;
    out.data.reserve(want);
    std::array<char, kReadChunk> buffer{};
    while (out.data.size() < want) {
        const auto n = read(fd.get(), buffer.data(), std::min(buffer.size(), want - out.data.size()));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            fail(ErrorKind::FileChanged, "cannot read " + shown + ": " + std::strerror(errno));
        }
        if (n == 0) {
            break;
        }
        out.data.append(buffer.data(), static_cast<std::size_t>(n));
    }
    const auto after = stat_of(fd.get(), shown);
    if (!same_state(out.st, after) || out.data.size() != static_cast<std::size_t>(out.st.st_size)) {
        fail(ErrorKind::FileChanged, shown + " changed while it was read");
    }
    return out;
}

mode_t replacement_mode(int root_fd, const std::vector<std::string>& names, mode_t fallback, Resolver resolver)
{
    const auto parent = open_parent_beneath(root_fd, names, resolver);
    struct stat st {};
    if (fstatat(parent.get(), names.back().c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        return fallback;
    }
    return S_ISREG(st.st_mode) ? (st.st_mode & kPermissionBits) : fallback;
}

void remove_file_beneath(int root_fd, const std::vector<std::string>& names, std::uint64_t device, std::uint64_t inode,
                         Resolver resolver)
{
    const auto shown = shown_name(names);
    const auto parent = open_parent_beneath(root_fd, names, resolver);
    const auto& last = names.back();
    struct stat existing {};
    if (fstatat(parent.get(), last.c_str(), &existing, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) {
            fail(ErrorKind::NoSuchFile, shown + " does not exist");
        }
        fail(errno == EACCES ? ErrorKind::AccessDenied : ErrorKind::InvalidPath,
             "cannot stat " + shown + ": " + std::strerror(errno));
    }
    if (!S_ISREG(existing.st_mode) || static_cast<std::uint64_t>(existing.st_dev) != device ||
        static_cast<std::uint64_t>(existing.st_ino) != inode) {
        fail(ErrorKind::FileChanged, shown + " was replaced since it was checked; not removed");
    }
    if (unlinkat(parent.get(), last.c_str(), 0) != 0) {
        fail(errno == EACCES || errno == EPERM ? ErrorKind::AccessDenied : ErrorKind::InvalidPath,
             "cannot remove " + shown + ": " + std::strerror(errno));
    }
    if (fsync(parent.get()) != 0) {
        fail(ErrorKind::UnsafeFile, "cannot sync the directory of " + shown + ": " + std::strerror(errno));
    }
}

struct stat replace_file_beneath(int root_fd, const std::vector<std::string>& names, std::string_view data, mode_t mode,
                                 Resolver resolver)
{
    const auto shown = shown_name(names);
    const auto parent = open_parent_beneath(root_fd, names, resolver);
    const auto& last = names.back();
    struct stat existing {};
    if (fstatat(parent.get(), last.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISLNK(existing.st_mode)) {
            fail(ErrorKind::InvalidPath, shown + " is a symlink; it is not replaced");
        }
        if (!S_ISREG(existing.st_mode)) {
            fail(ErrorKind::UnsafeFile, shown + " is not a regular file");
        }
    } else if (errno != ENOENT) {
        fail(errno == EACCES ? ErrorKind::AccessDenied : ErrorKind::InvalidPath,
             "cannot stat " + shown + ": " + std::strerror(errno));
    }
    const auto tmp_name = temporary_name();
    const int raw = openat(parent.get(), tmp_name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (raw < 0) {
        fail(errno == EACCES ? ErrorKind::AccessDenied : ErrorKind::InvalidPath,
             "cannot create a temporary file next to " + shown + ": " + std::strerror(errno));
    }
    UniqueFd tmp(raw);
    try {
        write_all(tmp.get(), data, shown);
        if (fchmod(tmp.get(), mode & kPermissionBits) != 0 || fsync(tmp.get()) != 0) {
            fail(ErrorKind::UnsafeFile, "cannot finish " + shown + ": " + std::strerror(errno));
        }
        if (renameat(parent.get(), tmp_name.c_str(), parent.get(), last.c_str()) != 0) {
            fail(errno == EISDIR ? ErrorKind::UnsafeFile : ErrorKind::InvalidPath,
                 "cannot rename over " + shown + ": " + std::strerror(errno));
        }
    } catch (...) {
        unlinkat(parent.get(), tmp_name.c_str(), 0);
        throw;
    }
    if (fsync(parent.get()) != 0) {
        fail(ErrorKind::UnsafeFile, "cannot sync the directory of " + shown + ": " + std::strerror(errno));
    }
    return stat_of(tmp.get(), shown);
}

} // namespace nr::sys
