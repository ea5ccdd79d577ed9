// SPDX-License-Identifier: Apache-2.0
#include "sys/base/random_token.h"

#include "core/base/hex.h"

#include <sys/random.h>

namespace nr::sys {

std::string random_bytes(std::size_t count, core::ErrorKind kind, std::string_view what)
{
    constexpr std::size_t kMostUncut = 256;
    std::string bytes(count, '\0');
    if (count > kMostUncut || getrandom(bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
        core::fail(kind, "no randomness for " + std::string(what));
    }
    return bytes;
}

std::string random_hex(std::size_t count, core::ErrorKind kind, std::string_view what)
{
    return core::to_hex(random_bytes(count, kind, what));
}

} // namespace nr::sys
