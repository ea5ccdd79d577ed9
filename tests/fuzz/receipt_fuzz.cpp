// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the edit handle/receipt decoder: the text comes from
// the worker (Diff, Revert, RecordEdit), so it is untrusted input. The MAC
// is checked before parsing in the helper, but the splitter runs on every
// input and the parser must hold its contract on any body.
//
// Checked: split_receipt and parse_receipt_body refuse only with
// ReceiptInvalid; a body accepted as one kind is refused as the other; an
// accepted body is canonical (printing it again gives the same bytes) and
// its fields keep the documented invariants (absent states have no inode
// and no mode, the receipt expires after it was made, the path stays
// relative).

#include "core/base/error.h"
#include "core/base/relative_path.h"
#include "core/files/edit_receipt.h"
#include "fuzz_support.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

using namespace nr::core;
using nr::fuzz::require;

void check_accepted(const EditReceipt& r, std::string_view body, ReceiptKind kind)
{
    require(r.kind == kind, "the kind is the one asked for");
    require(receipt_body(r) == body, "an accepted body is its own canonical form");
    require(r.expires > r.time && r.time >= 0, "it expires after it was made");
    require(!is_absent(r.before_sha256) || r.before_mode == 0, "an absent before has no mode");
    require(r.before_mode <= 0777, "the mode is permission bits only");
    if (kind == ReceiptKind::Receipt) {
        require(!is_absent(r.after_sha256) || (r.device == 0 && r.inode == 0), "an absent after has no inode");
        require(!(is_absent(r.before_sha256) && is_absent(r.after_sha256)), "not absent on both sides");
    } else {
        require(r.after_sha256.empty() && r.inode == 0, "a handle has no state after");
    }
    require(join_components(parse_relative_path(r.path, "path")) == r.path, "the path is a canonical relative path");
}

void parse_as(std::string_view body, ReceiptKind kind)
{
    try {
        const auto r = parse_receipt_body(body, kind);
        check_accepted(r, body, kind);
        const auto other = kind == ReceiptKind::Handle ? ReceiptKind::Receipt : ReceiptKind::Handle;
        bool refused = false;
        try {
            (void)parse_receipt_body(body, other);
        } catch (const Error& e) {
            require(e.kind() == ErrorKind::ReceiptInvalid, "the other kind is refused as ReceiptInvalid");
            refused = true;
        }
        require(refused, "a body is never both a handle and a receipt");
    } catch (const Error& e) {
        require(e.kind() == ErrorKind::ReceiptInvalid, "a refusal is ReceiptInvalid");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    // The body alone, as if its MAC had matched.
    parse_as(text, ReceiptKind::Handle);
    parse_as(text, ReceiptKind::Receipt);
    try {
        const auto split = split_receipt(text);
        require(split.mac.size() == 64, "the MAC is 64 hex digits");
        require(split.body + "mac=" + split.mac + "\n" == text, "body and MAC are the whole text");
        parse_as(split.body, ReceiptKind::Handle);
        parse_as(split.body, ReceiptKind::Receipt);
    } catch (const Error& e) {
        require(e.kind() == ErrorKind::ReceiptInvalid, "a refused split is ReceiptInvalid");
    }
    return 0;
}
