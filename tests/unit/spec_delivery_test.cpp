// SPDX-License-Identifier: Apache-2.0
#include "core/launch/spec_delivery.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace nr::core;
using ::testing::HasSubstr;

TEST(TheSpecDelivery, IsTheHelperChannelFromSystemd257On)
{
    EXPECT_EQ(spec_delivery_for("257.9-1~deb13u1"), SpecDelivery::HelperChannel);
    EXPECT_EQ(spec_delivery_for("258"), SpecDelivery::HelperChannel);
    EXPECT_EQ(spec_delivery_for("1000 (v1000)"), SpecDelivery::HelperChannel);
}

TEST(TheSpecDelivery, IsClaimBefore257)
{
    EXPECT_EQ(spec_delivery_for("252.38-1~deb12u1"), SpecDelivery::Claim);
    EXPECT_EQ(spec_delivery_for("256.7"), SpecDelivery::Claim);
}

TEST(TheSpecDelivery, IsClaimForAVersionThatDoesNotStartWithANumber)
{
    EXPECT_EQ(spec_delivery_for(""), SpecDelivery::Claim);
    EXPECT_EQ(spec_delivery_for("v257"), SpecDelivery::Claim);
    EXPECT_EQ(spec_delivery_for("unreadable: no bus"), SpecDelivery::Claim);
    EXPECT_EQ(spec_delivery_for("99999999999999999999"), SpecDelivery::Claim);
}

TEST(TheSpecDelivery, IsDescribedWithWhatCarriesTheSpec)
{
    EXPECT_THAT(describe(SpecDelivery::HelperChannel), HasSubstr("nr-helper-channel"));
    EXPECT_THAT(describe(SpecDelivery::Claim), HasSubstr("Launcher.Claim"));
}
