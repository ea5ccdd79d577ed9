// SPDX-License-Identifier: Apache-2.0
#include "core/files/edit_receipt.h"

#include "core/base/error.h"
#include "core/base/ids.h"
#include "core/base/path_policy.h"
#include "core/base/relative_path.h"

#include <charconv>
#include <limits>
#include <vector>

namespace nr::core {

namespace {

constexpr std::string_view kHandleHeader = "native-runtime-edit-handle 1\n";
constexpr std::string_view kReceiptHeader = "native-runtime-receipt 2\n";
constexpr std::size_t kIdLength = 32;
constexpr std::size_t kHashLength = 64;
constexpr std::uint32_t kPermissionBits = 0777;
// A receipt made "in the future" by more than this was not made by a
// helper on this clock.
constexpr std::int64_t kClockSlack = 60;
constexpr std::uint64_t kMaxTtl = 365ULL * 24 * 3600;

std::string_view header_of(ReceiptKind kind)
{
    return kind == ReceiptKind::Handle ? kHandleHeader : kReceiptHeader;
}

const std::vector<std::string_view>& keys_of(ReceiptKind kind)
{
    static const std::vector<std::string_view> handle{"id",     "owner", "chat", "job",    "path",
                                                      "before", "mode",  "time", "expires"};
    static const std::vector<std::string_view> receipt{"id",   "owner", "chat",   "job",   "path", "before",
                                                       "mode", "after", "device", "inode", "time", "expires"};
    return kind == ReceiptKind::Handle ? handle : receipt;
}

[[noreturn]] void invalid(const std::string& why)
{
    fail(ErrorKind::ReceiptInvalid, "receipt is malformed: " + why);
}

template <typename T> T number(std::string_view text, std::string_view key)
{
    T value{};
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    // Canonical decimal only: no sign, no leading zero, nothing after.
    if (text.empty() || ec != std::errc() || ptr != end || (text.size() > 1 && text.front() == '0') ||
        text.front() == '-') {
        invalid(std::string(key) + " is not a canonical number");
    }
    return value;
}

std::string mode_text(std::uint32_t mode)
{
    std::string out(4, '0');
    for (int i = 3; i >= 0; --i) {
        out[static_cast<std::size_t>(i)] = static_cast<char>('0' + (mode & 7U));
        mode >>= 3U;
    }
    return out;
}

std::uint32_t parse_mode(std::string_view text)
{
    if (text.size() != 4 || text.front() != '0') {
        invalid("mode is not four octal digits");
    }
    std::uint32_t mode = 0;
    for (const char c : text) {
        if (c < '0' || c > '7') {
            invalid("mode is not four octal digits");
        }
        mode = mode * 8 + static_cast<std::uint32_t>(c - '0');
    }
    return mode;
}

bool is_state(std::string_view state)
{
    return is_absent(state) || is_lower_hex(state, kHashLength);
}

void check_fields(const EditReceipt& r)
{
    if (!is_lower_hex(r.id, kIdLength)) {
        fail(ErrorKind::InvalidArgument, "receipt id must be 32 lowercase hex digits");
    }
    validate_id(IdKind::Owner, r.owner);
    validate_id(IdKind::Chat, r.chat);
    validate_id(IdKind::Job, r.job);
    (void)parse_relative_path(r.path, "receipt path");
    if (!is_state(r.before_sha256)) {
        fail(ErrorKind::InvalidArgument, "the state before must be 64 lowercase hex digits or absent");
    }
    if (r.before_mode > kPermissionBits || (is_absent(r.before_sha256) && r.before_mode != 0)) {
        fail(ErrorKind::InvalidArgument, "the mode before must be permission bits, 0 when absent");
    }
    if (r.kind == ReceiptKind::Handle) {
        if (!r.after_sha256.empty() || r.device != 0 || r.inode != 0) {
            fail(ErrorKind::InvalidArgument, "a handle has no state after");
        }
    } else {
        if (!is_state(r.after_sha256)) {
            fail(ErrorKind::InvalidArgument, "the state after must be 64 lowercase hex digits or absent");
        }
        if (is_absent(r.after_sha256) && (r.device != 0 || r.inode != 0)) {
            fail(ErrorKind::InvalidArgument, "an absent state after has no device or inode");
        }
        if (is_absent(r.before_sha256) && is_absent(r.after_sha256)) {
            fail(ErrorKind::InvalidArgument, "a receipt needs a file before or after");
        }
    }
    if (r.time < 0 || r.expires <= r.time) {
        fail(ErrorKind::InvalidArgument, "a receipt expires after it was made");
    }
}

std::int64_t expiry(std::int64_t now, std::uint64_t ttl_sec)
{
    if (ttl_sec == 0 || ttl_sec > kMaxTtl || now < 0 ||
        now > std::numeric_limits<std::int64_t>::max() - static_cast<std::int64_t>(ttl_sec)) {
        fail(ErrorKind::InvalidArgument, "a receipt lifetime is 1 second to 365 days");
    }
    return now + static_cast<std::int64_t>(ttl_sec);
}

} // namespace

bool is_absent(std::string_view state)
{
    return state == kAbsentState;
}

bool is_lower_hex(std::string_view text, std::size_t length)
{
    if (text.size() != length) {
        return false;
    }
    for (const char c : text) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return false;
        }
    }
    return true;
}

std::string receipt_body(const EditReceipt& r)
{
    check_fields(r);
    std::string out(header_of(r.kind));
    auto line = [&](std::string_view key, const std::string& value) { out += std::string(key) + "=" + value + "\n"; };
    line("id", r.id);
    line("owner", r.owner);
    line("chat", r.chat);
    line("job", r.job);
    line("path", r.path);
    line("before", r.before_sha256);
    line("mode", mode_text(r.before_mode));
    if (r.kind == ReceiptKind::Receipt) {
        line("after", r.after_sha256);
        line("device", std::to_string(r.device));
        line("inode", std::to_string(r.inode));
    }
    line("time", std::to_string(r.time));
    line("expires", std::to_string(r.expires));
    return out;
}

std::string receipt_text(const EditReceipt& receipt, std::string_view mac)
{
    if (!is_lower_hex(mac, kHashLength)) {
        fail(ErrorKind::InvalidArgument, "a receipt MAC is 64 lowercase hex digits");
    }
    return receipt_body(receipt) + "mac=" + std::string(mac) + "\n";
}

SignedReceipt split_receipt(std::string_view text)
{
    constexpr std::string_view kMacKey = "mac=";
    constexpr std::size_t kMacLine = kMacKey.size() + kHashLength + 1;
    if (text.size() < kReceiptHeader.size() + kMacLine || text.back() != '\n') {
        invalid("too short or not newline-terminated");
    }
    const auto body = text.substr(0, text.size() - kMacLine);
    const auto mac_line = text.substr(text.size() - kMacLine);
    if (!mac_line.starts_with(kMacKey) || (!body.empty() && body.back() != '\n')) {
        invalid("the last line is not mac=<hex>");
    }
    const auto mac = mac_line.substr(kMacKey.size(), kHashLength);
    if (!is_lower_hex(mac, kHashLength)) {
        invalid("the MAC is not 64 lowercase hex digits");
    }
    return SignedReceipt{std::string(body), std::string(mac)};
}

EditReceipt parse_receipt_body(std::string_view body, ReceiptKind expected)
{
    if (!body.starts_with(header_of(expected))) {
        if (body.starts_with(header_of(expected == ReceiptKind::Handle ? ReceiptKind::Receipt : ReceiptKind::Handle))) {
            invalid(expected == ReceiptKind::Handle ? "this is a receipt, not an edit handle"
                                                    : "this is an edit handle, not a receipt");
        }
        invalid("unknown header or version");
    }
    body.remove_prefix(header_of(expected).size());
    const auto& keys = keys_of(expected);
    std::vector<std::string_view> values(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const auto newline = body.find('\n');
        if (newline == std::string_view::npos) {
            invalid("missing " + std::string(keys[i]));
        }
        const auto line = body.substr(0, newline);
        if (!line.starts_with(keys[i]) || line.size() <= keys[i].size() || line[keys[i].size()] != '=') {
            invalid("expected " + std::string(keys[i]) + " in line " + std::to_string(i + 2));
        }
        values[i] = line.substr(keys[i].size() + 1);
        body.remove_prefix(newline + 1);
    }
    if (!body.empty()) {
        invalid("unexpected text after expires");
    }
    auto value = [&](std::string_view key) {
        for (std::size_t i = 0; i < keys.size(); ++i) {
            if (keys[i] == key) {
                return values[i];
            }
        }
        invalid("no " + std::string(key)); // not reached: keys are fixed
    };
    EditReceipt r;
    r.kind = expected;
    r.id = value("id");
    r.owner = value("owner");
    r.chat = value("chat");
    r.job = value("job");
    r.path = value("path");
    r.before_sha256 = value("before");
    r.before_mode = parse_mode(value("mode"));
    if (expected == ReceiptKind::Receipt) {
        r.after_sha256 = value("after");
        r.device = number<std::uint64_t>(value("device"), "device");
        r.inode = number<std::uint64_t>(value("inode"), "inode");
    }
    r.time = number<std::int64_t>(value("time"), "time");
    r.expires = number<std::int64_t>(value("expires"), "expires");
    try {
        check_fields(r);
    } catch (const Error& e) {
        invalid(e.what());
    }
    return r;
}

EditReceipt make_handle(std::string id, std::string owner, std::string chat, std::string job, std::string path,
                        const ObservedFile& before, std::uint32_t before_mode, std::int64_t now, std::uint64_t ttl_sec)
{
    EditReceipt r;
    r.kind = ReceiptKind::Handle;
    r.id = std::move(id);
    r.owner = std::move(owner);
    r.chat = std::move(chat);
    r.job = std::move(job);
    r.path = std::move(path);
    r.before_sha256 = before.present ? before.sha256 : std::string(kAbsentState);
    r.before_mode = before.present ? (before_mode & kPermissionBits) : 0;
    r.time = now;
    r.expires = expiry(now, ttl_sec);
    check_fields(r);
    return r;
}

EditReceipt make_receipt(const EditReceipt& handle, const ObservedFile& after, std::int64_t now, std::uint64_t ttl_sec)
{
    if (handle.kind != ReceiptKind::Handle) {
        fail(ErrorKind::ReceiptInvalid, "a receipt is made from an edit handle");
    }
    if (is_absent(handle.before_sha256) && !after.present) {
        fail(ErrorKind::NoSuchFile, handle.path + " did not exist before the edit and does not now");
    }
    EditReceipt r = handle;
    r.kind = ReceiptKind::Receipt;
    r.after_sha256 = after.present ? after.sha256 : std::string(kAbsentState);
    r.device = after.present ? after.device : 0;
    r.inode = after.present ? after.inode : 0;
    r.time = now;
    r.expires = expiry(now, ttl_sec);
    check_fields(r);
    return r;
}

void check_receipt_binding(const EditReceipt& receipt, std::string_view owner, std::string_view chat,
                           std::string_view job)
{
    if (receipt.owner != owner) {
        fail(ErrorKind::ReceiptMismatch, "the receipt belongs to another owner");
    }
    if (receipt.chat != chat) {
        fail(ErrorKind::ReceiptMismatch, "the receipt belongs to another chat");
    }
    if (receipt.job != job) {
        fail(ErrorKind::ReceiptMismatch, "the receipt belongs to another job");
    }
}

void check_receipt_fresh(const EditReceipt& receipt, std::int64_t now)
{
    if (now >= receipt.expires) {
        fail(ErrorKind::ReceiptExpired, "the receipt expired at " + std::to_string(receipt.expires) + " (now " +
                                            std::to_string(now) + "; files.receipt_ttl_sec)");
    }
    if (receipt.time > now + kClockSlack) {
        fail(ErrorKind::ReceiptExpired, "the receipt was made in the future (" + std::to_string(receipt.time) +
                                            ", now " + std::to_string(now) + ")");
    }
}

void check_receipt_current(const EditReceipt& receipt, const ObservedFile& current)
{
    if (is_absent(receipt.after_sha256)) {
        if (current.present) {
            fail(ErrorKind::ReceiptStale, receipt.path + " exists again since the edit deleted it");
        }
        return;
    }
    if (!current.present) {
        fail(ErrorKind::ReceiptStale, receipt.path + " no longer exists");
    }
    if (receipt.device != current.device || receipt.inode != current.inode) {
        fail(ErrorKind::ReceiptStale, receipt.path + " is another file (inode) than the edit produced");
    }
    if (receipt.after_sha256 != current.sha256) {
        fail(ErrorKind::ReceiptStale, receipt.path + " has changed since the edit was recorded");
    }
}

RevertAction revert_action(const EditReceipt& receipt)
{
    return is_absent(receipt.before_sha256) ? RevertAction::RemoveFile : RevertAction::WriteBefore;
}

std::string receipt_file_name(std::string_view id)
{
    return std::string(id) + ".receipt";
}

std::string snapshot_file_name(std::string_view id)
{
    return std::string(id) + ".snapshot";
}

std::string used_mark_name(const EditReceipt& receipt)
{
    check_fields(receipt);
    return std::to_string(receipt.expires) + "." + receipt.id +
           (receipt.kind == ReceiptKind::Handle ? ".handle" : ".receipt");
}

bool used_mark_prunable(std::string_view name, std::int64_t now)
{
    const auto dot = name.find('.');
    if (dot == std::string_view::npos || dot == 0) {
        return false;
    }
    const auto rest = name.substr(dot + 1);
    const auto suffix = rest.size() > kIdLength ? rest.substr(kIdLength) : std::string_view();
    if (!is_lower_hex(rest.substr(0, kIdLength), kIdLength) || (suffix != ".handle" && suffix != ".receipt")) {
        return false;
    }
    std::int64_t expires = 0;
    const auto text = name.substr(0, dot);
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), expires);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.front() == '0' || text.front() == '-') {
        return false;
    }
    return now >= expires;
}

std::string used_receipts_dir(std::string_view receipt_key_path)
{
    validate_absolute_path(std::string(receipt_key_path), "files.receipt_key");
    const auto slash = receipt_key_path.rfind('/');
    return (slash == 0 ? std::string() : std::string(receipt_key_path.substr(0, slash))) + "/used-receipts";
}

} // namespace nr::core
