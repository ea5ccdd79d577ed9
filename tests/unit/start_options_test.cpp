// SPDX-License-Identifier: Apache-2.0
#include "core/bus/start_options.h"

#include "core/base/error.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>

using namespace nr::core;
using ::testing::HasSubstr;

namespace {

// The kind of the refusal, or nullopt when the options were accepted.
std::optional<ErrorKind> refusal_of(const std::map<std::string, OptionValue>& options, std::string* message = nullptr)
{
    const auto e = nr::test::error_from([&] { (void)decode_start_options(options); });
    if (!e) {
        return std::nullopt;
    }
    if (message != nullptr) {
        *message = e->what();
    }
    return e->kind();
}

} // namespace

TEST(NoOptions, MeanTheSameAsEmptyPositionalArguments)
{
    const auto options = decode_start_options({});
    EXPECT_EQ(options.job, "");
    EXPECT_EQ(options.workspace, "");
    EXPECT_TRUE(options.environment.empty());
    EXPECT_EQ(options.run_as_user, "");
}

TEST(EveryKnownOption, IsTakenWithItsDocumentedType)
{
    const std::map<std::string, std::string> environment{{"NR_TEST_TOKEN", "x"}};
    const auto options = decode_start_options({{"job", OptionValue{std::string("j1")}},
                                               {"workspace", OptionValue{std::string("/srv/ws")}},
                                               {"environment", OptionValue{environment}},
                                               {"run_as_user", OptionValue{std::string("nrworker")}}});
    EXPECT_EQ(options.job, "j1");
    EXPECT_EQ(options.workspace, "/srv/ws");
    EXPECT_EQ(options.environment, environment);
    EXPECT_EQ(options.run_as_user, "nrworker");
}

TEST(AnUnknownOption, IsRefusedByNameInsteadOfIgnored)
{
    std::string message;
    EXPECT_EQ(refusal_of({{"worksapce", OptionValue{std::string("/srv/ws")}}}, &message), ErrorKind::InvalidArgument);
    EXPECT_THAT(message, HasSubstr("\"worksapce\""));
    EXPECT_THAT(message, HasSubstr("known: job, workspace"));
}

TEST(AnUnknownOptionWithControlCharacters, IsRefusedWithoutEchoingThem)
{
    std::string message;
    EXPECT_EQ(refusal_of({{"x\n\x1b[2J", OptionValue{std::string()}}}, &message), ErrorKind::InvalidArgument);
    EXPECT_THAT(message, HasSubstr("(unprintable)"));
    EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(AKnownOptionOfAnotherType, IsRefusedNamingTheTypeItNeeds)
{
    std::string message;
    EXPECT_EQ(refusal_of({{"environment", OptionValue{std::string("A=B")}}}, &message), ErrorKind::InvalidArgument);
    EXPECT_THAT(message, HasSubstr("\"environment\" must have type a{ss}"));
    EXPECT_EQ(refusal_of({{"job", OptionValue{std::map<std::string, std::string>{}}}}), ErrorKind::InvalidArgument);
}

TEST(AValueOfATypeNoOptionHas, IsRefused)
{
    EXPECT_EQ(refusal_of({{"workspace", OptionValue{UnsupportedOptionType{"u"}}}}), ErrorKind::InvalidArgument);
    EXPECT_EQ(refusal_of({{"bogus", OptionValue{UnsupportedOptionType{"ay"}}}}), ErrorKind::InvalidArgument);
}
