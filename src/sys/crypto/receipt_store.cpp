// SPDX-License-Identifier: Apache-2.0
#include "sys/crypto/receipt_store.h"

#include "core/base/error.h"
#include "core/base/path_policy.h"
#include "sys/base/random_token.h"
#include "sys/crypto/digest.h"
#include "sys/fs/safe_dirs.h"
#include "sys/fs/safe_files.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <vector>

namespace nr::sys {

namespace {

using core::ErrorKind;
using core::fail;

constexpr std::size_t kKeyBytes = 32;
constexpr std::size_t kMaxKeyBytes = 4096;

std::pair<std::string, std::string> split_parent(const std::string& path)
{
    core::validate_absolute_path(path, "path");
    const auto slash = path.rfind('/');
    if (path == "/" || slash == std::string::npos) {
        fail(ErrorKind::InvalidPath, path + " has no parent");
    }
    return {slash == 0 ? std::string("/") : path.substr(0, slash), path.substr(slash + 1)};
}

UniqueFd open_real_dir(int parent, const std::string& name, const std::string& shown)
{
    const int fd = openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        fail(ErrorKind::InvalidPath, "cannot open " + shown + " as a directory: " + std::strerror(errno));
    }
    return UniqueFd(fd);
}

struct stat stat_of(int fd, const std::string& shown)
{
    struct stat st {};
    if (fstat(fd, &st) != 0) {
        fail(ErrorKind::InvalidPath, "cannot stat " + shown + ": " + std::strerror(errno));
    }
    return st;
}

std::string create_key(int parent, const std::string& name, const std::string& path)
{
    auto bytes = random_bytes(kKeyBytes, ErrorKind::ConfigInvalid, "the receipt key");
    const int fd = openat(parent, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        fail(ErrorKind::ConfigInvalid, "cannot create the receipt key " + path + ": " + std::strerror(errno));
    }
    const UniqueFd key(fd);
    if (write(key.get(), bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()) || fsync(key.get()) != 0) {
        unlinkat(parent, name.c_str(), 0);
        fail(ErrorKind::ConfigInvalid, "cannot write the receipt key " + path);
    }
    return bytes;
}

} // namespace

void provision_snapshot_dir(const std::string& path, gid_t group)
{
    const auto [parent_path, name] = split_parent(path);
    const auto parent_path_fd = open_directory_no_symlinks(parent_path, 0);
    const auto parent = open_real_dir(parent_path_fd.get(), ".", parent_path);
    if (mkdirat(parent.get(), name.c_str(), 0700) != 0 && errno != EEXIST) {
        fail(ErrorKind::InvalidPath, "cannot create " + path + ": " + std::strerror(errno));
    }
    const auto dir = open_real_dir(parent.get(), name, path);
    const auto st = stat_of(dir.get(), path);
    if ((st.st_mode & 07777 & ~kSnapshotDirMode) != 0) {
        fail(ErrorKind::InvalidPath, path + " exists with a mode looser than 2770; fix or remove it first");
    }
    if (st.st_uid != 0) {
        fail(ErrorKind::InvalidPath, path + " exists and is owned by uid " + std::to_string(st.st_uid) +
                                         ", not root: the helper could not write there; remove it first");
    }
    // Group first, mode second: chown clears the setgid bit.
    if (fchown(dir.get(), 0, group) != 0 || fchmod(dir.get(), kSnapshotDirMode) != 0) {
        fail(ErrorKind::InvalidPath, "cannot set owner and mode of " + path + ": " + std::strerror(errno));
    }
}

std::string load_or_create_receipt_key(const std::string& path)
{
    const auto [parent_path, name] = split_parent(path);
    const auto parent = open_directory_no_symlinks(parent_path, 0);
    const int raw = openat(parent.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (raw < 0 && errno == ENOENT) {
        return create_key(parent.get(), name, path);
    }
    if (raw < 0) {
        fail(ErrorKind::ConfigInvalid, "cannot open the receipt key " + path + ": " + std::strerror(errno));
    }
    const UniqueFd key(raw);
    const auto st = stat_of(key.get(), path);
    if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 077) != 0 || st.st_size < 32 ||
        static_cast<std::uint64_t>(st.st_size) > kMaxKeyBytes) {
        fail(ErrorKind::ConfigInvalid,
             "the receipt key " + path + " must be a root-owned file of 32..4096 bytes without group/other access");
    }
    std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
    if (read(key.get(), bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
        fail(ErrorKind::ConfigInvalid, "cannot read the receipt key " + path);
    }
    return bytes;
}

std::string sign_receipt(const core::EditReceipt& receipt, std::string_view key)
{
    return core::receipt_text(receipt, hmac_sha256_hex(key, core::receipt_body(receipt)));
}

core::EditReceipt verify_receipt(std::string_view text, std::string_view key, core::ReceiptKind expected)
{
    const auto signed_receipt = core::split_receipt(text);
    if (!equal_in_constant_time(hmac_sha256_hex(key, signed_receipt.body), signed_receipt.mac)) {
        fail(ErrorKind::ReceiptInvalid, "the receipt's MAC does not match: forged or edited");
    }
    return core::parse_receipt_body(signed_receipt.body, expected);
}

SnapshotDir::SnapshotDir(const std::string& path) : path_(path)
{
    const auto [parent_path, name] = split_parent(path);
    const auto parent = open_directory_no_symlinks(parent_path, 0);
    dir_ = open_real_dir(parent.get(), name, path);
    const auto st = stat_of(dir_.get(), path);
    if ((st.st_mode & 0007) != 0) {
        fail(ErrorKind::ConfigInvalid, "snapshot directory " + path + " is accessible to others; provision it");
    }
    if (st.st_uid != 0) {
        fail(ErrorKind::ConfigInvalid, "snapshot directory " + path + " is owned by uid " + std::to_string(st.st_uid) +
                                           ", not root: the helper cannot write there; provision it");
    }
}

void SnapshotDir::store_snapshot(std::string_view id, std::string_view before)
{
    replace_file_beneath(dir_.get(), {core::snapshot_file_name(id)}, before, kReceiptFileMode);
}

std::string SnapshotDir::store_receipt(const core::EditReceipt& receipt, std::string_view key)
{
    auto text = sign_receipt(receipt, key); // not const: returned by move
    replace_file_beneath(dir_.get(), {core::receipt_file_name(receipt.id)}, text, kReceiptFileMode);
    return text;
}

std::string SnapshotDir::snapshot_of(const core::EditReceipt& receipt, std::uint64_t max_bytes)
{
    if (core::is_absent(receipt.before_sha256)) {
        return {};
    }
    FileSnapshot snapshot;
    try {
        snapshot = read_file_beneath(dir_.get(), {core::snapshot_file_name(receipt.id)}, max_bytes);
    } catch (const core::Error& e) {
        fail(ErrorKind::ReceiptInvalid, std::string("the receipt's snapshot is unusable: ") + e.what());
    }
    if (!equal_in_constant_time(sha256_hex(snapshot.data), receipt.before_sha256)) {
        fail(ErrorKind::ReceiptInvalid, "the receipt's snapshot was changed after it was recorded");
    }
    return std::move(snapshot.data);
}

UsedReceipts::UsedReceipts(const std::string& path) : path_(path)
{
    const auto [parent_path, name] = split_parent(path);
    const auto parent_path_fd = open_directory_no_symlinks(parent_path, 0);
    const auto parent = open_real_dir(parent_path_fd.get(), ".", parent_path);
    if (mkdirat(parent.get(), name.c_str(), 0700) != 0 && errno != EEXIST) {
        fail(ErrorKind::ConfigInvalid, "cannot create " + path + ": " + std::strerror(errno));
    }
    const int fd = openat(parent.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        fail(ErrorKind::ConfigInvalid, "cannot open " + path + " as a directory: " + std::strerror(errno));
    }
    dir_ = UniqueFd(fd);
    const auto st = stat_of(dir_.get(), path);
    if (st.st_uid != 0 || (st.st_mode & 077) != 0) {
        fail(ErrorKind::ConfigInvalid, path + " must be a root-owned directory without group or other access");
    }
}

bool UsedReceipts::used(const core::EditReceipt& receipt) const
{
    struct stat st {};
    const auto name = core::used_mark_name(receipt);
    if (fstatat(dir_.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        return true;
    }
    if (errno != ENOENT) {
        fail(ErrorKind::ConfigInvalid, "cannot look up " + path_ + "/" + name + ": " + std::strerror(errno));
    }
    return false;
}

void UsedReceipts::claim(const core::EditReceipt& receipt)
{
    const auto name = core::used_mark_name(receipt);
    const int fd = openat(dir_.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) {
        fail(ErrorKind::ReceiptUsed, receipt.kind == core::ReceiptKind::Handle
                                         ? "the edit handle was already recorded"
                                         : "the receipt was already used to revert");
    }
    if (fd < 0) {
        fail(ErrorKind::ConfigInvalid, "cannot mark " + name + " used in " + path_ + ": " + std::strerror(errno));
    }
    const UniqueFd mark(fd);
    if (fsync(mark.get()) != 0 || fsync(dir_.get()) != 0) {
        unlinkat(dir_.get(), name.c_str(), 0);
        fail(ErrorKind::ConfigInvalid, "cannot make the mark of " + name + " durable: " + std::strerror(errno));
    }
}

void UsedReceipts::release(const core::EditReceipt& receipt)
{
    const auto name = core::used_mark_name(receipt);
    if (unlinkat(dir_.get(), name.c_str(), 0) == 0) {
        fsync(dir_.get());
    }
}

std::size_t UsedReceipts::prune(std::int64_t now)
{
    const int fd = openat(dir_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    DIR* listing = fdopendir(fd);
    if (listing == nullptr) {
        close(fd);
        return 0;
    }
    std::vector<std::string> expired;
    while (const auto* entry = readdir(listing)) {
        if (core::used_mark_prunable(entry->d_name, now)) {
            expired.emplace_back(entry->d_name);
        }
    }
    closedir(listing);
    std::size_t removed = 0;
    for (const auto& name : expired) {
        removed += unlinkat(dir_.get(), name.c_str(), 0) == 0 ? 1 : 0;
    }
    return removed;
}

} // namespace nr::sys
