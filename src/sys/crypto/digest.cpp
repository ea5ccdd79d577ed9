// SPDX-License-Identifier: Apache-2.0
#include "sys/crypto/digest.h"

#include "core/base/error.h"
#include "core/base/hex.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>

namespace nr::sys {

std::string sha256_hex(std::string_view data)
{
    std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
    unsigned int size = 0;
    if (EVP_Digest(data.data(), data.size(), out.data(), &size, EVP_sha256(), nullptr) != 1) {
        core::fail(core::ErrorKind::ReceiptInvalid, "SHA-256 failed");
    }
    return core::to_hex({reinterpret_cast<const char*>(out.data()), size});
}

std::string hmac_sha256_hex(std::string_view key, std::string_view data)
{
    std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
    unsigned int size = 0;
    if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
             reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(), &size) == nullptr) {
        core::fail(core::ErrorKind::ReceiptInvalid, "HMAC-SHA-256 failed");
    }
    return core::to_hex({reinterpret_cast<const char*>(out.data()), size});
}

bool equal_in_constant_time(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

} // namespace nr::sys
