// SPDX-License-Identifier: Apache-2.0
#include "core/gateway/gateway_destination.h"

#include <gtest/gtest.h>

#include <sys/socket.h>

using namespace nr::core;

namespace {

std::vector<std::uint8_t> v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d)
{
    return {a, b, c, d};
}

} // namespace

TEST(APublicAddress, IsAllowed)
{
    EXPECT_TRUE(destination_allowed(AF_INET, v4(93, 184, 216, 34), {}));
}

TEST(LoopbackAndMetadata, AreDeniedWithoutAnAllowance)
{
    EXPECT_FALSE(destination_allowed(AF_INET, v4(127, 0, 0, 1), {}));
    EXPECT_FALSE(destination_allowed(AF_INET, v4(169, 254, 169, 254), {}));
    EXPECT_FALSE(destination_allowed(AF_INET, v4(10, 1, 2, 3), {}));
    std::vector<std::uint8_t> v6_loopback(16, 0);
    v6_loopback[15] = 1;
    EXPECT_FALSE(destination_allowed(AF_INET6, v6_loopback, {}));
}

TEST(ASessionsAllowAddresses, OpenOnlyTheirRange)
{
    const std::vector<IpPrefix> allow{parse_ip_prefix("127.0.0.0/8")};
    EXPECT_TRUE(destination_allowed(AF_INET, v4(127, 0, 0, 1), allow));
    EXPECT_FALSE(destination_allowed(AF_INET, v4(169, 254, 169, 254), allow));
}

TEST(APrefix, ContainsOnlyAddressesOfItsFamilyAndBits)
{
    const auto prefix = parse_ip_prefix("10.128.0.0/9");
    EXPECT_TRUE(prefix_contains(prefix, AF_INET, v4(10, 200, 0, 1)));
    EXPECT_FALSE(prefix_contains(prefix, AF_INET, v4(10, 127, 0, 1)));
    EXPECT_FALSE(prefix_contains(prefix, AF_INET6, std::vector<std::uint8_t>(16, 10)));
}
