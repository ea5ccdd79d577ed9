// SPDX-License-Identifier: Apache-2.0
// native-runtimectl's JSON writer (core/cli/json_output.h): every output parses,
// whatever bytes went in.

#include "core/cli/json_output.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <string>

using namespace nr::core;

TEST(TheJsonFlag, TakesShortOrPrettyAndDefaultsToShort)
{
    EXPECT_EQ(json_style(""), JsonStyle::Short);
    EXPECT_EQ(json_style("short"), JsonStyle::Short);
    EXPECT_EQ(json_style("pretty"), JsonStyle::Pretty);
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidArgument, json_style("verbose"));
}

TEST(ShortJson, IsOneLineThatParsesBackToTheSameValue)
{
    const Json value{{"unit", "native-runtime-a-b.service"}, {"tasks", 3}, {"memory_bytes", nullptr}};
    const auto text = json_text(value, JsonStyle::Short);
    EXPECT_EQ(text.find('\n'), std::string::npos) << text;
    EXPECT_EQ(Json::parse(text), value);
}

TEST(PrettyJson, IsIndentedAndParsesBackToTheSameValue)
{
    const Json value{{"passed", true}, {"checks", Json::array({Json{{"name", "userns"}}})}};
    const auto text = json_text(value, JsonStyle::Pretty);
    EXPECT_NE(text.find("\n  \"checks\""), std::string::npos) << text;
    EXPECT_EQ(Json::parse(text), value);
}

TEST(JsonOutput, KeepsKeysInTheOrderTheyWereAdded)
{
    const Json value{{"unit", 1}, {"owner", 2}, {"chat", 3}};
    EXPECT_EQ(json_text(value, JsonStyle::Short), R"({"unit":1,"owner":2,"chat":3})");
}

TEST(JsonOutput, EscapesQuotesBackslashesAndControlCharacters)
{
    const std::string nasty = std::string("a\"b\\c\nd\te\x01\x1f", 11);
    const auto text = json_text(Json{{"message", nasty}}, JsonStyle::Short);
    EXPECT_EQ(text.find('\n'), std::string::npos);
    EXPECT_EQ(text.find('\x01'), std::string::npos);
    EXPECT_EQ(Json::parse(text)["message"], nasty);
}

TEST(JsonOutput, KeepsValidUtf8AsItIs)
{
    const std::string text = json_text(Json{{"message", "gr\xc3\xbc\xc3\x9f \xf0\x9f\x98\x80"}}, JsonStyle::Short);
    EXPECT_NE(text.find("gr\xc3\xbc\xc3\x9f \xf0\x9f\x98\x80"), std::string::npos) << text;
}

TEST(TextThatIsNotUtf8, BecomesValidJsonWithEachBadByteReplacedByUFFFD)
{
    const std::string replacement = "\xef\xbf\xbd";
    const auto text = json_text(Json{{"MESSAGE", "a\xff"
                                                 "b\xc3"},
                                     {"name\xfe", 1}},
                                JsonStyle::Short);
    const auto parsed = Json::parse(text); // throws on invalid UTF-8
    EXPECT_EQ(parsed["MESSAGE"], "a" + replacement + "b" + replacement);
    EXPECT_TRUE(parsed.contains("name" + replacement)) << text;
}
