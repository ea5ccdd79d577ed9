// SPDX-License-Identifier: Apache-2.0
#include "sys/base/random_token.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <string>

using namespace nr::sys;
using nr::core::ErrorKind;

TEST(ARandomHexToken, HasTwoLowercaseHexDigitsPerByte)
{
    const auto token = random_hex(16, ErrorKind::LaunchFailed, "a test token");
    EXPECT_EQ(token.size(), 32U);
    EXPECT_EQ(token.find_first_not_of("0123456789abcdef"), std::string::npos) << token;
}

TEST(TwoRandomTokens, Differ)
{
    EXPECT_NE(random_hex(16, ErrorKind::LaunchFailed, "a test token"),
              random_hex(16, ErrorKind::LaunchFailed, "a test token"));
}

TEST(RandomBytes, AreAsManyAsAsked)
{
    EXPECT_EQ(random_bytes(32, ErrorKind::ConfigInvalid, "a test key").size(), 32U);
}

TEST(MoreRandomBytesThanTheKernelAlwaysGivesInOneCall, AreRefusedWithTheCallersKind)
{
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, random_bytes(257, ErrorKind::ReceiptInvalid, "too much"));
    EXPECT_NE(std::string(e->what()).find("no randomness for too much"), std::string::npos) << e->what();
}
