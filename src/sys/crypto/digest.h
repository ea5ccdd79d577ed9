// SPDX-License-Identifier: Apache-2.0
#pragma once
// SHA-256 and HMAC-SHA-256 from libcrypto (OpenSSL 3, Debian 12's
// libssl-dev), for file hashes and receipt authentication. Hex output.

#include <string>
#include <string_view>

namespace nr::sys {

std::string sha256_hex(std::string_view data);

std::string hmac_sha256_hex(std::string_view key, std::string_view data);

// Compares two strings of equal length without an early exit, so the time
// taken says nothing about how much of a forged MAC was right.
bool equal_in_constant_time(std::string_view a, std::string_view b);

} // namespace nr::sys
