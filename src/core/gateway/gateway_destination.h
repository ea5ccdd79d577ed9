// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which addresses the gateway may connect to for a session. The gateway
// resolves names itself, so a name that resolves into a special-use range
// (loopback, link-local with the cloud metadata address, private ranges:
// core::denied_destinations()) must not smuggle a session there, unless the
// session's adapter names that range in egress.allow_addresses.

#include "core/base/network_policy.h"

#include <cstdint>
#include <vector>

namespace nr::core {

// `family` AF_INET (4 bytes) or AF_INET6 (16 bytes), network order.
bool prefix_contains(const IpPrefix& prefix, int family, const std::vector<std::uint8_t>& address);

bool destination_allowed(int family, const std::vector<std::uint8_t>& address,
                         const std::vector<IpPrefix>& allow_addresses);

} // namespace nr::core
