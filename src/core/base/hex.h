// SPDX-License-Identifier: Apache-2.0
#pragma once
// Lowercase hexadecimal of raw bytes: digests, random tokens and ids.

#include <string>
#include <string_view>

namespace nr::core {

inline std::string to_hex(std::string_view bytes)
{
    static constexpr std::string_view kDigits = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const char c : bytes) {
        const auto byte = static_cast<unsigned char>(c);
        out += kDigits[byte >> 4U];
        out += kDigits[byte & 0x0FU];
    }
    return out;
}

} // namespace nr::core
