// SPDX-License-Identifier: Apache-2.0
#include "core/launch/passed_descriptors.h"

#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace nr::core;
using ::testing::HasSubstr;

namespace {

constexpr long kSelf = 4242;

ListenEnvironment listen_env(const std::string& pid, const std::string& fds, const std::string& names)
{
    return {pid, fds, names};
}

} // namespace

TEST(DescriptorsSystemdPassed, AreNoneWhenNoListenVariableIsSet)
{
    EXPECT_TRUE(passed_descriptors({}, kSelf).empty());
}

TEST(DescriptorsSystemdPassed, AreNumberedFromThreeInTheOrderOfTheirNames)
{
    const auto passed = passed_descriptors(listen_env("4242", "2", "nr-launch-spec:nr-helper-channel"), kSelf);
    EXPECT_EQ(passed.size(), 2U);
    EXPECT_EQ(passed_descriptor(passed, "nr-launch-spec"), 3);
    EXPECT_EQ(passed_descriptor(passed, "nr-helper-channel"), 4);
}

TEST(DescriptorsSystemdPassed, AreRefusedWhenMeantForAnotherProcess)
{
    for (const auto* pid : {"4243", "1", "04242", "+4242", " 4242", "", "x"}) {
        NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, passed_descriptors(listen_env(pid, "1", "a"), kSelf));
        EXPECT_THAT(e->what(), HasSubstr("LISTEN_PID")) << pid;
    }
}

TEST(DescriptorsSystemdPassed, AreRefusedWhenOnlySomeVariablesAreSet)
{
    const std::vector<ListenEnvironment> partial{
        {"4242", std::nullopt, std::nullopt}, {std::nullopt, "1", "a"}, {"4242", "1", std::nullopt}};
    for (const auto& env : partial) {
        NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, passed_descriptors(env, kSelf));
        EXPECT_THAT(e->what(), HasSubstr("not all set"));
    }
}

TEST(DescriptorsSystemdPassed, AreRefusedWhenTheCountIsNotOneToSixteen)
{
    for (const auto* fds : {"0", "17", "-1", "01", "1 ", "", "99999999999999999999"}) {
        NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, passed_descriptors(listen_env("4242", fds, "a"), kSelf));
        EXPECT_THAT(e->what(), HasSubstr("LISTEN_FDS")) << fds;
    }
}

TEST(DescriptorsSystemdPassed, AreRefusedWhenNamesAndCountDisagree)
{
    NR_EXPECT_REFUSED(fewer, ErrorKind::LaunchFailed, passed_descriptors(listen_env("4242", "2", "a"), kSelf));
    EXPECT_THAT(fewer->what(), HasSubstr("1 names for 2"));
    NR_EXPECT_REFUSED(more, ErrorKind::LaunchFailed, passed_descriptors(listen_env("4242", "1", "a:b"), kSelf));
    EXPECT_THAT(more->what(), HasSubstr("2 names for 1"));
}

TEST(DescriptorsSystemdPassed, AreRefusedWhenANameIsInvalidOrRepeated)
{
    const std::string too_long(kMaxDescriptorName + 1, 'n');
    for (const auto& names : {std::string("a:"), std::string(":a"), std::string("a b:c"), std::string("a\tb:c"),
                              std::string("a\x7f:c"), "a:" + too_long}) {
        NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, passed_descriptors(listen_env("4242", "2", names), kSelf));
        EXPECT_THAT(e->what(), HasSubstr("invalid name"));
    }
    NR_EXPECT_REFUSED(twice, ErrorKind::LaunchFailed, passed_descriptors(listen_env("4242", "2", "a:a"), kSelf));
    EXPECT_THAT(twice->what(), HasSubstr("passed twice"));
}

TEST(ADescriptorName, IsValidUpToSystemdsLimitOfPrintableBytesWithoutAColon)
{
    EXPECT_TRUE(valid_descriptor_name("nr-launch-spec"));
    EXPECT_TRUE(valid_descriptor_name(std::string(kMaxDescriptorName, 'n')));
    EXPECT_FALSE(valid_descriptor_name(""));
    EXPECT_FALSE(valid_descriptor_name("a:b"));
    EXPECT_FALSE(valid_descriptor_name("caf\xc3\xa9"));
}

TEST(ADescriptorNotPassed, IsRefusedNamingTheNameLookedFor)
{
    const auto passed = passed_descriptors(listen_env("4242", "1", "stored"), kSelf);
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, passed_descriptor(passed, "nr-launch-spec"));
    EXPECT_THAT(e->what(), HasSubstr("none is named nr-launch-spec"));
}
