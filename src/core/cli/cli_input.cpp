// SPDX-License-Identifier: Apache-2.0
#include "core/cli/cli_input.h"

#include "core/base/error.h"

#include <string>

namespace nr::core {

namespace {

// Length of the UTF-8 sequence starting at text[i], 0 when malformed.
std::size_t sequence_length(std::string_view text, std::size_t i)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    if (lead < 0x80) {
        return lead == 0 ? 0 : 1;
    }
    std::size_t length = 0;
    unsigned char low = 0x80; // bounds of the second byte (RFC 3629, section 4)
    unsigned char high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
        length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        length = 3;
        low = lead == 0xe0 ? 0xa0 : 0x80;  // no overlong forms
        high = lead == 0xed ? 0x9f : 0xbf; // no UTF-16 surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4;
        low = lead == 0xf0 ? 0x90 : 0x80;  // no overlong forms
        high = lead == 0xf4 ? 0x8f : 0xbf; // nothing above U+10FFFF
    } else {
        return 0;
    }
    if (i + length > text.size()) {
        return 0;
    }
    if (byte(i + 1) < low || byte(i + 1) > high) {
        return 0;
    }
    for (std::size_t k = 2; k < length; ++k) {
        if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) {
            return 0;
        }
    }
    return length;
}

} // namespace

bool is_bus_string(std::string_view text)
{
    for (std::size_t i = 0; i < text.size();) {
        const auto length = sequence_length(text, i);
        if (length == 0) {
            return false;
        }
        i += length;
    }
    return true;
}

void validate_bus_string(std::string_view what, std::string_view text)
{
    if (!is_bus_string(text)) {
        fail(ErrorKind::InvalidArgument, std::string(what) + " is not valid UTF-8 text");
    }
}

void validate_env_argument(std::string_view item)
{
    const auto eq = item.find('=');
    if (eq == 0 || item.empty()) {
        fail(ErrorKind::InvalidArgument, "--env needs NAME=VALUE or NAME");
    }
    validate_bus_string("--env", item);
}

} // namespace nr::core
