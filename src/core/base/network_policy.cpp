// SPDX-License-Identifier: Apache-2.0
#include "core/base/network_policy.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <array>
#include <charconv>
#include <stdexcept>

namespace nr::core {

namespace {

constexpr std::uint32_t kBitsPerByte = 8;

bool host_bits_are_zero(const IpPrefix& prefix)
{
    for (std::size_t i = 0; i < prefix.bytes.size(); ++i) {
        const auto first_bit = static_cast<std::uint32_t>(i) * kBitsPerByte;
        if (first_bit + kBitsPerByte <= prefix.length) {
            continue;
        }
        const auto kept = prefix.length > first_bit ? prefix.length - first_bit : 0U;
        const auto mask = static_cast<std::uint8_t>(0xFFU >> kept);
        if ((prefix.bytes[i] & mask) != 0) {
            return false;
        }
    }
    return true;
}

} // namespace

IpPrefix parse_ip_prefix(std::string_view text)
{
    const auto slash = text.find('/');
    const std::string address(text.substr(0, slash));
    IpPrefix prefix;
    std::array<std::uint8_t, 16> buffer{};
    if (inet_pton(AF_INET, address.c_str(), buffer.data()) == 1) {
        prefix.family = AF_INET;
        prefix.bytes.assign(buffer.begin(), buffer.begin() + 4);
    } else if (inet_pton(AF_INET6, address.c_str(), buffer.data()) == 1) {
        prefix.family = AF_INET6;
        prefix.bytes.assign(buffer.begin(), buffer.end());
    } else {
        throw std::invalid_argument("not an IPv4 or IPv6 address: " + address);
    }
    const auto max_length = static_cast<std::uint32_t>(prefix.bytes.size()) * kBitsPerByte;
    prefix.length = max_length;
    if (slash != std::string_view::npos) {
        const auto digits = text.substr(slash + 1);
        const auto* end = digits.data() + digits.size();
        const auto [ptr, ec] = std::from_chars(digits.data(), end, prefix.length);
        if (digits.empty() || ec != std::errc() || ptr != end || prefix.length > max_length) {
            throw std::invalid_argument("bad prefix length in " + std::string(text));
        }
    }
    if (!host_bits_are_zero(prefix)) {
        throw std::invalid_argument("host bits set beyond the prefix in " + std::string(text));
    }
    return prefix;
}

std::string format_ip_prefix(const IpPrefix& prefix)
{
    std::array<char, INET6_ADDRSTRLEN> text{};
    inet_ntop(prefix.family, prefix.bytes.data(), text.data(), text.size());
    return std::string(text.data()) + "/" + std::to_string(prefix.length);
}

const std::vector<IpPrefix>& denied_destinations()
{
    static const std::vector<IpPrefix> kDenied = [] {
        // No entry covers another: systemd drops covered ones from
        // IPAddressDeny=, and the hardening read-back compares entries.
        std::vector<IpPrefix> out;
        for (const auto* range : {
                 "0.0.0.0/8",       // this network
                 "10.0.0.0/8",      // private use
                 "100.64.0.0/10",   // shared address space (CGNAT)
                 "127.0.0.0/8",     // loopback
                 "169.254.0.0/16",  // link-local, incl. cloud metadata 169.254.169.254
                 "172.16.0.0/12",   // private use
                 "192.0.0.0/24",    // IETF protocol assignments
                 "192.0.2.0/24",    // documentation
                 "192.88.99.0/24",  // 6to4 relay anycast
                 "192.168.0.0/16",  // private use
                 "198.18.0.0/15",   // benchmarking
                 "198.51.100.0/24", // documentation
                 "203.0.113.0/24",  // documentation
                 "224.0.0.0/4",     // multicast
                 "240.0.0.0/4",     // reserved, incl. broadcast
                 "::/96",           // unspecified, loopback and IPv4-compatible (deprecated)
                 "::ffff:0:0/96",   // IPv4-mapped
                 "64:ff9b::/96",    // NAT64 (reaches IPv4 ranges above)
                 "64:ff9b:1::/48",  // local-use NAT64
                 "2001::/32",       // Teredo (embeds IPv4)
                 "2002::/16",       // 6to4 (embeds IPv4)
                 "fec0::/10",       // site-local (deprecated)
                 "100::/64",        // discard
                 "2001:db8::/32",   // documentation
                 "fc00::/7",        // unique local
                 "fe80::/10",       // link-local
                 "ff00::/8",        // multicast
             }) {
            out.push_back(parse_ip_prefix(range));
        }
        return out;
    }();
    return kDenied;
}

} // namespace nr::core
