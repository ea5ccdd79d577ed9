#pragma once
// Where edit receipts live and how they are authenticated. The snapshot
// directory is shared by helper, worker and gateway (root or gateway owner,
// the application's group, mode 2770) and absent from every session; the
// receipt key is a root-only file the helper alone reads, so neither a
// session nor the worker can make a receipt the helper accepts.

#include <cstdint>
#include <string>
#include <string_view>
#include <sys/types.h>

#include "core/edit_receipt.h"
#include "sys/unique_fd.h"

namespace nr::sys {

inline constexpr mode_t kSnapshotDirMode = 02770;
inline constexpr mode_t kReceiptFileMode = 0640;

// Creates `path` owned by `owner` and `group` with mode 2770, or brings an
// existing directory there. Its parent must be reachable without symlinks
// through root-owned directories. An existing entry that is not a
// directory, is owned by someone other than `owner`, or has any mode bit
// outside 2770 (looser than the target) is refused with InvalidPath.
void provision_snapshot_dir(const std::string& path, uid_t owner, gid_t group);

// The HMAC key at `path`: a root-owned regular file of 32..4096 bytes with
// no group or other permission bits. Created with 32 random bytes, mode
// 0600, when missing. Anything else is ConfigInvalid.
std::string load_or_create_receipt_key(const std::string& path);

std::string sign_receipt(const core::EditReceipt& receipt, std::string_view key);

// Checks the MAC over the exact text first (ReceiptInvalid for a forged or
// edited receipt), then parses it.
core::EditReceipt verify_receipt(std::string_view text, std::string_view key);

class SnapshotDir {
public:
    // Opens `path` without following symlinks; it must be a directory with
    // no permission bits for others.
    explicit SnapshotDir(const std::string& path);

    // Writes "<id>.snapshot" (the content before the edit) and
    // "<id>.receipt", both 0640, each through a temporary file and rename.
    // Returns the receipt text.
    std::string store(const core::EditReceipt& receipt, std::string_view before, std::string_view key);

    // The stored content before the edit; ReceiptInvalid when missing or
    // when its hash is not the receipt's before-hash (edited in the dir).
    std::string snapshot_of(const core::EditReceipt& receipt, std::uint64_t max_bytes);

private:
    std::string path_;
    UniqueFd dir_;
};

} // namespace nr::sys
