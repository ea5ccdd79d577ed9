// SPDX-License-Identifier: Apache-2.0
#include "core/gateway/gateway_destination.h"

namespace nr::core {

bool prefix_contains(const IpPrefix& prefix, int family, const std::vector<std::uint8_t>& address)
{
    if (prefix.family != family || prefix.bytes.size() != address.size()) {
        return false;
    }
    std::uint32_t remaining = prefix.length;
    for (std::size_t i = 0; i < address.size() && remaining > 0; ++i) {
        const std::uint32_t bits = remaining >= 8 ? 8 : remaining;
        const auto mask = static_cast<std::uint8_t>(0xFFU << (8 - bits));
        if ((address[i] & mask) != (prefix.bytes[i] & mask)) {
            return false;
        }
        remaining -= bits;
    }
    return true;
}

bool destination_allowed(int family, const std::vector<std::uint8_t>& address,
                         const std::vector<IpPrefix>& allow_addresses)
{
    for (const auto& allowed : allow_addresses) {
        if (prefix_contains(allowed, family, address)) {
            return true;
        }
    }
    for (const auto& denied : denied_destinations()) {
        if (prefix_contains(denied, family, address)) {
            return false;
        }
    }
    return true;
}

} // namespace nr::core
