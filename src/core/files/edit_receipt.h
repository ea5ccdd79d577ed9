// SPDX-License-Identifier: Apache-2.0
#pragma once
// Edit handles and receipts: what lets the application later show the diff
// of, or revert, one native tool edit, with every state in them observed by
// the helper itself.
//
// BeginEdit: the helper reads the file (or finds it absent), keeps a
// snapshot, and returns a *handle* naming who (owner, chat, job), which file
// (relative path) and its state before (SHA-256 and mode, or "absent").
// RecordEdit consumes the handle: the helper reads the file again and
// returns a *receipt* that adds the state after (device, inode, SHA-256, or
// "absent"). Both carry the time they were made and when they expire, and
// are authenticated with HMAC-SHA-256 by the helper (the key never leaves
// it); each is used once (a durable mark in the helper's own state
// directory). This file holds the pure part: the canonical texts, a strict
// parser, and the binding, expiry, staleness and revert decisions.

#include <cstdint>
#include <string>
#include <string_view>

namespace nr::core {

// A before- or after-state that is no file at all (a creation's before, a
// deletion's after), in place of a SHA-256.
inline constexpr std::string_view kAbsentState = "absent";

enum class ReceiptKind {
    Handle,  // from BeginEdit: the state before; consumed by RecordEdit
    Receipt, // from RecordEdit: before and after; consumed by Revert
};

struct EditReceipt {
    ReceiptKind kind = ReceiptKind::Receipt;
    std::string id; // 32 lowercase hex digits, also names the snapshot
    std::string owner;
    std::string chat;
    std::string job; // required: receipts are bound to a job
    std::string path;
    std::string before_sha256;     // 64 lowercase hex digits, or "absent"
    std::uint32_t before_mode = 0; // permission bits before (<= 0777); 0 when absent
    // Receipt only (empty / 0 in a handle):
    std::string after_sha256; // 64 lowercase hex digits, or "absent"
    std::uint64_t device = 0; // of the file after the edit; 0 when absent
    std::uint64_t inode = 0;
    std::int64_t time = 0;    // seconds since the epoch when it was made
    std::int64_t expires = 0; // refused from this second on; after time
};

struct SignedReceipt {
    std::string body; // the exact text the MAC covers
    std::string mac;  // 64 lowercase hex digits
};

// A file as the helper observed it: present with its identity and content
// hash, or absent.
struct ObservedFile {
    bool present = false;
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    std::string sha256;
};

[[nodiscard]] bool is_absent(std::string_view state);

// The canonical text the MAC covers. Throws InvalidArgument/InvalidPath
// when a field would not survive parsing back.
std::string receipt_body(const EditReceipt& receipt);

// body + "mac=<hex>\n".
std::string receipt_text(const EditReceipt& receipt, std::string_view mac);

// Splits a handle or receipt into body and MAC. Anything but exactly the
// format receipt_text writes is ReceiptInvalid.
SignedReceipt split_receipt(std::string_view text);

// Parses an authenticated body back; ReceiptInvalid on any deviation,
// including a handle where a receipt is expected and the reverse.
EditReceipt parse_receipt_body(std::string_view body, ReceiptKind expected);

// The handle made from the state the helper observed now. `before` absent
// means the edit creates the file.
EditReceipt make_handle(std::string id, std::string owner, std::string chat, std::string job, std::string path,
                        const ObservedFile& before, std::uint32_t before_mode, std::int64_t now, std::uint64_t ttl_sec);

// The receipt of a handle with the state the helper observed after the
// edit, valid for `ttl_sec` from `now`. NoSuchFile when neither state is a
// file (nothing was created or deleted, so there is nothing to record).
EditReceipt make_receipt(const EditReceipt& handle, const ObservedFile& after, std::int64_t now, std::uint64_t ttl_sec);

// A receipt is usable only by the owner, chat and job it was made for.
// Throws ReceiptMismatch naming the field that differs.
void check_receipt_binding(const EditReceipt& receipt, std::string_view owner, std::string_view chat,
                           std::string_view job);

// ReceiptExpired from `expires` on (and for a time in the future by more
// than a minute of clock slack, which no helper wrote).
void check_receipt_fresh(const EditReceipt& receipt, std::int64_t now);

// The file must still be in the state the edit produced: absent when the
// edit deleted it, otherwise the same device, inode and content hash.
// Throws ReceiptStale otherwise (a later edit, a replacement, a creation).
void check_receipt_current(const EditReceipt& receipt, const ObservedFile& current);

enum class RevertAction {
    RemoveFile,  // the edit created the file
    WriteBefore, // the edit changed or deleted it: write the snapshot back
};
RevertAction revert_action(const EditReceipt& receipt);

// "<id>.receipt" and "<id>.snapshot" in the snapshot directory.
std::string receipt_file_name(std::string_view id);
std::string snapshot_file_name(std::string_view id);

// The name of the mark that says a handle or receipt was used:
// "<expires>.<id>.handle" or "<expires>.<id>.receipt". The expiry leads so
// that marks of expired receipts (refused anyway) can be pruned by name.
std::string used_mark_name(const EditReceipt& receipt);
// Whether a mark may be deleted at `now`: its receipt has expired. A name
// that is not a mark is never pruned.
bool used_mark_prunable(std::string_view name, std::int64_t now);

// Where used marks live: "used-receipts" beside the receipt key, in the
// helper's own root-only state directory (never the group-writable
// snapshot directory, where the worker could delete a mark).
std::string used_receipts_dir(std::string_view receipt_key_path);

// Whether `text` is `length` lowercase hex digits.
bool is_lower_hex(std::string_view text, std::size_t length);

} // namespace nr::core
