// SPDX-License-Identifier: Apache-2.0
#include "core/base/unit_name.h"

#include <array>

namespace nr::core {

namespace {

bool keeps_as_is(char c, bool leading)
{
    if (c == '.') {
        return !leading;
    }
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ':' || c == '_';
}

void append_hex_escape(std::string& out, unsigned char byte)
{
    constexpr std::array<char, 16> kHex{'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};
    out += "\\x";
    out += kHex.at(byte >> 4U);
    out += kHex.at(byte & 0x0FU);
}

} // namespace

std::string systemd_escape(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '/') {
            out += '-';
        } else if (keeps_as_is(c, i == 0)) {
            out += c;
        } else {
            append_hex_escape(out, static_cast<unsigned char>(c));
        }
    }
    return out;
}

std::string owner_slice_name(std::string_view owner)
{
    return std::string(kSlicePrefix) + systemd_escape(owner) + ".slice";
}

std::string legacy_owner_slice_name(std::string_view owner)
{
    return std::string(kLegacySlicePrefix) + systemd_escape(owner) + ".slice";
}

std::string session_unit_name(std::string_view owner, std::string_view chat)
{
    return std::string(kUnitPrefix) + systemd_escape(owner) + "-" + systemd_escape(chat) + ".service";
}

bool is_session_unit_name(std::string_view unit)
{
    constexpr std::string_view kSuffix = ".service";
    if (unit.size() <= kUnitPrefix.size() + kSuffix.size() || !unit.starts_with(kUnitPrefix) ||
        !unit.ends_with(kSuffix)) {
        return false;
    }
    const auto body = unit.substr(kUnitPrefix.size(), unit.size() - kUnitPrefix.size() - kSuffix.size());
    const auto dash = body.find('-');
    if (dash == std::string_view::npos || dash == 0 || dash + 1 == body.size() ||
        body.find('-', dash + 1) != std::string_view::npos) {
        return false;
    }
    // Both halves must be escaped ids: no '@' (a template instance), no
    // leading '.', nothing outside the escape output's alphabet.
    const auto is_escaped_part = [](std::string_view part) {
        if (part.front() == '.') {
            return false;
        }
        for (const char c : part) {
            if (!keeps_as_is(c, false) && c != '\\') {
                return false;
            }
        }
        return true;
    };
    return is_escaped_part(body.substr(0, dash)) && is_escaped_part(body.substr(dash + 1));
}

} // namespace nr::core
