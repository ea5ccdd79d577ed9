// SPDX-License-Identifier: Apache-2.0
#include "core/cli/terminal_text.h"

#include <array>
#include <cstdint>

namespace nr::core {

namespace {

void append_hex(std::string& out, unsigned char byte)
{
    constexpr std::array<char, 16> kDigits{'0', '1', '2', '3', '4', '5', '6', '7',
                                           '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};
    out += "\\x";
    out += kDigits.at(byte >> 4U);
    out += kDigits.at(byte & 0xfU);
}

// The length of the valid UTF-8 sequence at text[at] (2 to 4) with its code
// point, or 0 when it is not one: overlong forms, surrogates and values
// above U+10FFFF are invalid, as the Unicode standard's table of
// well-formed sequences says.
std::size_t utf8_sequence(std::string_view text, std::size_t at, std::uint32_t& code)
{
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
    const auto lead = byte(0);
    std::size_t length = 0;
    std::uint32_t min = 0;
    if ((lead & 0xe0U) == 0xc0U) {
        length = 2;
        code = lead & 0x1fU;
        min = 0x80;
    } else if ((lead & 0xf0U) == 0xe0U) {
        length = 3;
        code = lead & 0x0fU;
        min = 0x800;
    } else if ((lead & 0xf8U) == 0xf0U) {
        length = 4;
        code = lead & 0x07U;
        min = 0x10000;
    } else {
        return 0;
    }
    if (at + length > text.size()) {
        return 0;
    }
    for (std::size_t i = 1; i < length; ++i) {
        if ((byte(i) & 0xc0U) != 0x80U) {
            return 0;
        }
        code = (code << 6U) | (byte(i) & 0x3fU);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
        return 0;
    }
    return length;
}

} // namespace

std::string escape_control(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) {
        const auto byte = static_cast<unsigned char>(text[at]);
        if (byte < 0x80) {
            if (byte < 0x20 || byte == 0x7f) {
                append_hex(out, byte);
            } else if (byte == '\\') {
                out += "\\\\";
            } else {
                out += static_cast<char>(byte);
            }
            ++at;
            continue;
        }
        std::uint32_t code = 0;
        const auto length = utf8_sequence(text, at, code);
        if (length == 0) {
            append_hex(out, byte);
            ++at;
        } else if (code <= 0x9f) {
            // C1 controls (U+0080..U+009F): CSI (U+009B) alone starts an
            // escape sequence on many terminals. Both bytes are shown.
            for (std::size_t i = 0; i < length; ++i) {
                append_hex(out, static_cast<unsigned char>(text[at + i]));
            }
            at += length;
        } else {
            out.append(text.substr(at, length));
            at += length;
        }
    }
    return out;
}

std::string cmdline_text(std::string_view raw)
{
    // The kernel ends each argument with NUL; a process that rewrote its
    // argv may leave several, or none at the end.
    while (!raw.empty() && raw.back() == '\0') {
        raw.remove_suffix(1);
    }
    std::string out;
    std::size_t start = 0;
    for (;;) {
        const auto end = raw.find('\0', start);
        if (start > 0) {
            out += ' ';
        }
        out += escape_control(raw.substr(start, end == std::string_view::npos ? end : end - start));
        if (end == std::string_view::npos) {
            return out;
        }
        start = end + 1;
    }
}

std::string fit_columns(std::string_view text, std::size_t columns)
{
    if (columns == 0) {
        return std::string(text);
    }
    // Count code points: a continuation byte (10xxxxxx) starts none.
    std::size_t points = 0;
    std::size_t cut = std::string_view::npos;
    for (std::size_t at = 0; at < text.size(); ++at) {
        if ((static_cast<unsigned char>(text[at]) & 0xc0U) == 0x80U) {
            continue;
        }
        if (points == columns - 1) {
            cut = at;
        }
        if (++points > columns) {
            return std::string(text.substr(0, cut)) + "…";
        }
    }
    return std::string(text);
}

} // namespace nr::core
