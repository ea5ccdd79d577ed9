// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which destinations a session that shares the host network may reach.
// Everything that is not the public internet (loopback, link-local with the
// cloud metadata address, private, shared, multicast and other special-use
// ranges) is denied through systemd's IPAddressDeny=; the operator names the
// few local addresses sessions need (DNS resolver, signed MCP gateway) and
// those go into IPAddressAllow=, which systemd lets win over the deny list.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nr::core {

// How a session reaches the network. Gateway: the session's own network
// namespace, whose only way out is the egress gateway's listener in it
// (core/gateway/egress.h).
enum class NetworkMode { Host, Offline, Gateway };

struct IpPrefix {
    int family = 0;                  // AF_INET or AF_INET6
    std::vector<std::uint8_t> bytes; // 4 or 16, network order
    std::uint32_t length = 0;        // prefix length in bits

    bool operator==(const IpPrefix&) const = default;
};

// "192.0.2.1", "10.0.0.0/8", "::1", "fe80::/10". Host bits beyond the prefix
// must be zero. Throws std::invalid_argument with a reason.
IpPrefix parse_ip_prefix(std::string_view text);

std::string format_ip_prefix(const IpPrefix& prefix);

// The special-use ranges every host-network session is denied.
const std::vector<IpPrefix>& denied_destinations();

} // namespace nr::core
