// SPDX-License-Identifier: Apache-2.0
#include "core/base/network_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <sys/socket.h>

using namespace nr::core;

namespace {

bool is_denied(const std::string& range)
{
    const auto& denied = denied_destinations();
    return std::find(denied.begin(), denied.end(), parse_ip_prefix(range)) != denied.end();
}

} // namespace

TEST(AnIpv4AddressWithoutPrefix, IsAHostRoute)
{
    const auto prefix = parse_ip_prefix("127.0.0.2");
    EXPECT_EQ(prefix.family, AF_INET);
    EXPECT_EQ(prefix.bytes, (std::vector<std::uint8_t>{127, 0, 0, 2}));
    EXPECT_EQ(prefix.length, 32U);
}

TEST(AnIpv6Prefix, IsParsedWithItsLength)
{
    const auto prefix = parse_ip_prefix("fe80::/10");
    EXPECT_EQ(prefix.family, AF_INET6);
    EXPECT_EQ(prefix.bytes.size(), 16U);
    EXPECT_EQ(prefix.bytes[0], 0xfe);
    EXPECT_EQ(prefix.bytes[1], 0x80);
    EXPECT_EQ(prefix.length, 10U);
}

TEST(AnAddressText, RoundTripsThroughFormatting)
{
    EXPECT_EQ(format_ip_prefix(parse_ip_prefix("10.0.0.0/8")), "10.0.0.0/8");
    EXPECT_EQ(format_ip_prefix(parse_ip_prefix("::1")), "::1/128");
}

TEST(APrefixWithHostBitsSet, IsRejected)
{
    EXPECT_THROW(parse_ip_prefix("10.0.0.1/8"), std::invalid_argument);
    EXPECT_THROW(parse_ip_prefix("fe80::1/10"), std::invalid_argument);
    EXPECT_NO_THROW(parse_ip_prefix("10.0.0.0/8"));
}

TEST(AMalformedAddress, IsRejected)
{
    for (const auto* text :
         {"", "localhost", "256.0.0.1", "1.2.3.4/33", "::1/129", "1.2.3.4/", "1.2.3.4/x", "1.2.3.4/8/8", " 1.2.3.4"}) {
        EXPECT_THROW(parse_ip_prefix(text), std::invalid_argument) << text;
    }
}

TEST(TheDeniedDestinations, CoverLoopbackLinkLocalMetadataPrivateAndMulticast)
{
    for (const auto* range :
         {"127.0.0.0/8", "169.254.0.0/16", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10",
          "224.0.0.0/4", "240.0.0.0/4", "0.0.0.0/8", "::/96", "fe80::/10", "fc00::/7", "ff00::/8", "::ffff:0:0/96"}) {
        EXPECT_TRUE(is_denied(range)) << range;
    }
}

TEST(TheDeniedDestinations, LeaveThePublicInternetReachable)
{
    const auto& denied = denied_destinations();
    for (const auto& prefix : denied) {
        EXPECT_GT(prefix.length, 0U) << "a /0 would deny everything: " << format_ip_prefix(prefix);
    }
    EXPECT_FALSE(is_denied("0.0.0.0/0"));
    EXPECT_FALSE(is_denied("::/0"));
}

TEST(TheDeniedDestinations, CoverTheIpv6RangesThatEmbedAnIpv4Address)
{
    for (const auto* range : {"2002::/16", "2001::/32", "64:ff9b:1::/48", "::/96", "fec0::/10", "64:ff9b::/96"}) {
        EXPECT_TRUE(is_denied(range)) << range;
    }
}

TEST(TheDeniedDestinations, HaveNoEntryCoveredByAnother)
{
    // systemd drops covered entries from IPAddressDeny=, and the hardening
    // read-back looks for each planned entry as it was planned.
    const auto& denied = denied_destinations();
    for (const auto& outer : denied) {
        for (const auto& inner : denied) {
            if (&outer == &inner || outer.family != inner.family || outer.length > inner.length) {
                continue;
            }
            const auto whole_bytes = outer.length / 8U;
            const auto rest_bits = outer.length % 8U;
            bool covered = std::equal(outer.bytes.begin(), outer.bytes.begin() + whole_bytes, inner.bytes.begin());
            if (covered && rest_bits != 0) {
                const auto mask = static_cast<std::uint8_t>(0xffU << (8U - rest_bits));
                covered = (outer.bytes[whole_bytes] & mask) == (inner.bytes[whole_bytes] & mask);
            }
            EXPECT_FALSE(covered) << format_ip_prefix(outer) << " covers " << format_ip_prefix(inner);
        }
    }
}
