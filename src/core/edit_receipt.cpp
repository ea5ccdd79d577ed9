#include "core/edit_receipt.h"

#include "core/error.h"
#include "core/ids.h"
#include "core/relative_path.h"

#include <array>
#include <charconv>

namespace nr::core {

namespace {

constexpr std::string_view kHeader = "native-runtime-receipt 1\n";
constexpr std::size_t kIdLength = 32;
constexpr std::size_t kHashLength = 64;
constexpr std::array<std::string_view, 10> kKeys{"id",     "owner", "chat",   "job",   "path",
                                                 "device", "inode", "before", "after", "time"};

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

void check_fields(const EditReceipt& r)
{
    if (!is_lower_hex(r.id, kIdLength)) {
        fail(ErrorKind::InvalidArgument, "receipt id must be 32 lowercase hex digits");
    }
    validate_id(IdKind::Owner, r.owner);
    validate_id(IdKind::Chat, r.chat);
    validate_id(IdKind::Job, r.job);
    (void)parse_relative_path(r.path, "receipt path");
    if (!is_lower_hex(r.before_sha256, kHashLength) || !is_lower_hex(r.after_sha256, kHashLength)) {
        fail(ErrorKind::InvalidArgument, "receipt hashes must be 64 lowercase hex digits");
    }
    if (r.time < 0) {
        fail(ErrorKind::InvalidArgument, "receipt time must not be negative");
    }
}

} // namespace

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
    std::string out(kHeader);
    const std::array<std::string, kKeys.size()> values{r.id,
                                                       r.owner,
                                                       r.chat,
                                                       r.job,
                                                       r.path,
                                                       std::to_string(r.device),
                                                       std::to_string(r.inode),
                                                       r.before_sha256,
                                                       r.after_sha256,
                                                       std::to_string(r.time)};
    for (std::size_t i = 0; i < kKeys.size(); ++i) {
        out += std::string(kKeys[i]) + "=" + values[i] + "\n";
    }
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
    if (text.size() < kHeader.size() + kMacLine || text.back() != '\n') {
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

EditReceipt parse_receipt_body(std::string_view body)
{
    if (!body.starts_with(kHeader)) {
        invalid("unknown header or version");
    }
    body.remove_prefix(kHeader.size());
    std::array<std::string_view, kKeys.size()> values{};
    for (std::size_t i = 0; i < kKeys.size(); ++i) {
        const auto newline = body.find('\n');
        if (newline == std::string_view::npos) {
            invalid("missing " + std::string(kKeys[i]));
        }
        const auto line = body.substr(0, newline);
        if (!line.starts_with(kKeys[i]) || line.size() <= kKeys[i].size() || line[kKeys[i].size()] != '=') {
            invalid("expected " + std::string(kKeys[i]) + " in line " + std::to_string(i + 2));
        }
        values[i] = line.substr(kKeys[i].size() + 1);
        body.remove_prefix(newline + 1);
    }
    if (!body.empty()) {
        invalid("unexpected text after time");
    }
    EditReceipt r;
    r.id = values[0];
    r.owner = values[1];
    r.chat = values[2];
    r.job = values[3];
    r.path = values[4];
    r.device = number<std::uint64_t>(values[5], "device");
    r.inode = number<std::uint64_t>(values[6], "inode");
    r.before_sha256 = values[7];
    r.after_sha256 = values[8];
    r.time = number<std::int64_t>(values[9], "time");
    try {
        check_fields(r);
    } catch (const Error& e) {
        invalid(e.what());
    }
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

void check_receipt_current(const EditReceipt& receipt, std::uint64_t device, std::uint64_t inode,
                           std::string_view current_sha256)
{
    if (receipt.device != device || receipt.inode != inode) {
        fail(ErrorKind::ReceiptStale, receipt.path + " is another file (inode) than the edit produced");
    }
    if (receipt.after_sha256 != current_sha256) {
        fail(ErrorKind::ReceiptStale, receipt.path + " has changed since the edit was recorded");
    }
}

std::string receipt_file_name(std::string_view id)
{
    return std::string(id) + ".receipt";
}

std::string snapshot_file_name(std::string_view id)
{
    return std::string(id) + ".snapshot";
}

} // namespace nr::core
