// SPDX-License-Identifier: Apache-2.0
// What native-runtimectl checks on its command line before any bus call
// (core/cli/cli_input.h).

#include "core/cli/cli_input.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <string>

using namespace nr::core;

TEST(ABusString, IsWellFormedUtf8WithoutNul)
{
    EXPECT_TRUE(is_bus_string(""));
    EXPECT_TRUE(is_bus_string("chat-1"));
    EXPECT_TRUE(is_bus_string("gr\xc3\xbc\xc3\x9f")); // two-byte sequences
    EXPECT_TRUE(is_bus_string("\xe2\x82\xac"));       // U+20AC
    EXPECT_TRUE(is_bus_string("\xf0\x9f\x98\x80"));   // U+1F600
    EXPECT_TRUE(is_bus_string("\xf4\x8f\xbf\xbf"));   // U+10FFFF, the last code point
}

TEST(ABusString, HasNoStrayContinuationTruncatedOrOverlongSequence)
{
    EXPECT_FALSE(is_bus_string("\xff"));
    EXPECT_FALSE(is_bus_string("a\x80"));            // continuation byte alone
    EXPECT_FALSE(is_bus_string("\xc3"));             // truncated
    EXPECT_FALSE(is_bus_string("\xe2\x82"));         // truncated
    EXPECT_FALSE(is_bus_string("\xc0\xaf"));         // overlong '/'
    EXPECT_FALSE(is_bus_string("\xe0\x80\xaf"));     // overlong '/'
    EXPECT_FALSE(is_bus_string("\xf0\x80\x80\xaf")); // overlong '/'
}

TEST(ABusString, HasNoSurrogateNorCodePointBeyondUnicode)
{
    EXPECT_FALSE(is_bus_string("\xed\xa0\x80"));     // U+D800
    EXPECT_FALSE(is_bus_string("\xf4\x90\x80\x80")); // U+110000
    EXPECT_FALSE(is_bus_string("\xf5\x80\x80\x80"));
}

TEST(ABusString, HasNoNul)
{
    EXPECT_FALSE(is_bus_string(std::string("a\0b", 3)));
}

TEST(ATextThatIsNotUtf8, IsAnInvalidArgumentNamingTheFieldNotTheBytes)
{
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidArgument, validate_bus_string("--workspace", "/w/\xff"));
    EXPECT_EQ(std::string(e->what()).find('\xff'), std::string::npos);
    EXPECT_NE(std::string(e->what()).find("--workspace"), std::string::npos);
}

TEST(AnEnvArgument, IsNameEqualsValueOrAName)
{
    validate_env_argument("HOME=/home/a");
    validate_env_argument("TOKEN");
    validate_env_argument("EMPTY=");
}

TEST(AnEnvArgument, NeedsANameAndUtf8)
{
    NR_EXPECT_REFUSED(empty, ErrorKind::InvalidArgument, validate_env_argument(""));
    NR_EXPECT_REFUSED(nameless, ErrorKind::InvalidArgument, validate_env_argument("=x"));
    NR_EXPECT_REFUSED(bytes, ErrorKind::InvalidArgument, validate_env_argument("A=\xff"));
}
