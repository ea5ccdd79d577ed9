#pragma once
// Edit receipts: the record that lets the application later show the diff
// of, or revert, one native tool edit. A receipt names who made the edit
// (owner, chat, job), which file (relative path, device and inode), the
// content before and after (SHA-256), when, and the snapshot of the content
// before. The text is authenticated with HMAC-SHA-256 by the helper (the
// key never leaves it); this file holds the pure part: the canonical text,
// a strict parser, and the binding and staleness rules.

#include <cstdint>
#include <string>
#include <string_view>

namespace nr::core {

struct EditReceipt {
    std::string id; // 32 lowercase hex digits, also names the snapshot
    std::string owner;
    std::string chat;
    std::string job; // required: receipts are bound to a job
    std::string path;
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    std::string before_sha256; // 64 lowercase hex digits
    std::string after_sha256;
    std::int64_t time = 0; // seconds since the epoch
};

struct SignedReceipt {
    std::string body; // the exact text the MAC covers
    std::string mac;  // 64 lowercase hex digits
};

// The canonical text the MAC covers. Throws InvalidArgument/InvalidPath
// when a field would not survive parsing back.
std::string receipt_body(const EditReceipt& receipt);

// body + "mac=<hex>\n".
std::string receipt_text(const EditReceipt& receipt, std::string_view mac);

// Splits a receipt into body and MAC. Anything but exactly the format
// receipt_text writes is ReceiptInvalid.
SignedReceipt split_receipt(std::string_view text);

// Parses an authenticated body back; ReceiptInvalid on any deviation.
EditReceipt parse_receipt_body(std::string_view body);

// A receipt is usable only by the owner, chat and job it was made for.
// Throws ReceiptMismatch naming the field that differs.
void check_receipt_binding(const EditReceipt& receipt, std::string_view owner, std::string_view chat,
                           std::string_view job);

// The file must still be the one the edit produced: same device, inode and
// content hash. Throws ReceiptStale otherwise (a later edit, a replacement).
void check_receipt_current(const EditReceipt& receipt, std::uint64_t device, std::uint64_t inode,
                           std::string_view current_sha256);

// "<id>.receipt" and "<id>.snapshot" in the snapshot directory.
std::string receipt_file_name(std::string_view id);
std::string snapshot_file_name(std::string_view id);

// Whether `text` is `length` lowercase hex digits.
bool is_lower_hex(std::string_view text, std::size_t length);

} // namespace nr::core
