// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where edit handles and receipts live and how they are authenticated. The
// snapshot directory is shared by helper, worker and gateway (owner root,
// the application's group, mode 2770) and absent from every session; the
// receipt key and the marks of used handles and receipts are root-only
// files in the helper's state directory, so neither a session nor the
// worker can make a receipt the helper accepts or make it usable twice.

#include <cstdint>
#include <string>
#include <string_view>
#include <sys/types.h>

#include "core/files/edit_receipt.h"
#include "sys/base/unique_fd.h"

namespace nr::sys {

inline constexpr mode_t kSnapshotDirMode = 02770;
inline constexpr mode_t kReceiptFileMode = 0640;

// Creates `path` owned by root and `group` with mode 2770, or brings an
// existing directory there. Its parent must be reachable without symlinks
// through root-owned directories. An existing entry that is not a
// directory, is owned by anyone but root, or has any mode bit outside 2770
// (looser than the target) is refused with InvalidPath. Root ownership is
// what the helper needs: it runs without CAP_DAC_OVERRIDE and is not in the
// group, so only the owner bits let it write there.
void provision_snapshot_dir(const std::string& path, gid_t group);

// The HMAC key at `path`: a root-owned regular file of 32..4096 bytes with
// no group or other permission bits. Created with 32 random bytes, mode
// 0600, when missing. Anything else is ConfigInvalid.
std::string load_or_create_receipt_key(const std::string& path);

std::string sign_receipt(const core::EditReceipt& receipt, std::string_view key);

// Checks the MAC over the exact text first (ReceiptInvalid for a forged or
// edited receipt), then parses it as the `expected` kind.
core::EditReceipt verify_receipt(std::string_view text, std::string_view key, core::ReceiptKind expected);

class SnapshotDir {
public:
    // Opens `path` without following symlinks; it must be a root-owned
    // directory with no permission bits for others (ConfigInvalid).
    explicit SnapshotDir(const std::string& path);

    // Writes "<id>.snapshot", the content before the edit, mode 0640,
    // through a temporary file and rename.
    void store_snapshot(std::string_view id, std::string_view before);

    // Writes "<id>.receipt" (the signed receipt text), 0640, the same way.
    // Returns the text.
    std::string store_receipt(const core::EditReceipt& receipt, std::string_view key);

    // The stored content before the edit ("" when the before-state is
    // absent); ReceiptInvalid when missing or when its hash is not the
    // before-hash (edited in the group-writable dir).
    std::string snapshot_of(const core::EditReceipt& receipt, std::uint64_t max_bytes);

private:
    std::string path_;
    UniqueFd dir_;
};

// The durable record of used handles and receipts: one empty file per use,
// named core::used_mark_name, in a root-owned 0700 directory beside the
// receipt key. A mark survives helper restarts; marks of expired receipts
// are pruned (an expired receipt is refused anyway).
class UsedReceipts {
public:
    // Opens `path`, creating it root-owned 0700 when missing; its parent is
    // reached without symlinks. Anything but a root-owned directory without
    // group or other bits is ConfigInvalid.
    explicit UsedReceipts(const std::string& path);

    [[nodiscard]] bool used(const core::EditReceipt& receipt) const;
    // Marks it used (O_CREAT|O_EXCL, then fsync of file and directory);
    // ReceiptUsed when it already was.
    void claim(const core::EditReceipt& receipt);
    // Takes a claim back when the use failed before it changed anything.
    void release(const core::EditReceipt& receipt);
    // Removes the marks of receipts expired at `now`; returns how many.
    std::size_t prune(std::int64_t now);

private:
    std::string path_;
    UniqueFd dir_;
};

} // namespace nr::sys
