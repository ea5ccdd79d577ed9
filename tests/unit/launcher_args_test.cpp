// SPDX-License-Identifier: Apache-2.0
#include "core/launch/launcher_args.h"

#include "core/base/error.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace nr::core;
using ::testing::ElementsAre;

TEST(TheLauncherCommandLine, NamesOnlyTheClaimTokenForASessionWithoutAGateway)
{
    EXPECT_THAT(launcher_argv("/l", {"tok", 0}), ElementsAre("/l", "--claim", "tok"));
}

TEST(TheLauncherCommandLine, AddsTheGatewayPortForAGatewaySession)
{
    EXPECT_THAT(launcher_argv("/l", {"tok", 8080}), ElementsAre("/l", "--claim", "tok", "--gateway-port", "8080"));
}

TEST(TheClaimShim, IsInstalledBesideTheLauncher)
{
    EXPECT_EQ(claim_path_beside("/usr/libexec/native-runtime/native-runtime-launch"),
              "/usr/libexec/native-runtime/native-runtime-claim");
    EXPECT_EQ(claim_path_beside("/native-runtime-launch"), "/native-runtime-claim");
}

TEST(TheLauncherCommandLine, ReadsBackWhatItWrote)
{
    for (const LauncherArgs& args : {LauncherArgs{"tok", 0}, LauncherArgs{"tok", 1}, LauncherArgs{"tok", 65535}}) {
        const auto parsed = parse_launcher_args(launcher_argv("/l", args));
        EXPECT_EQ(parsed.claim_token, args.claim_token);
        EXPECT_EQ(parsed.gateway_port, args.gateway_port);
    }
}

TEST(AnyOtherLauncherCommandLine, IsRefusedWithTheUsage)
{
    const std::vector<std::vector<std::string>> refused{
        {"/l"},
        {"/l", "--claim"},
        {"/l", "--claim", ""},
        {"/l", "--token", "tok"},
        {"/l", "--claim", "tok", "--gateway-port"},
        {"/l", "--claim", "tok", "--gateway-port", "0"},
        {"/l", "--claim", "tok", "--gateway-port", "65536"},
        {"/l", "--claim", "tok", "--gateway-port", "08080"},
        {"/l", "--claim", "tok", "--gateway-port", "80x"},
        {"/l", "--claim", "tok", "--port", "8080"},
        {"/l", "--claim", "tok", "--gateway-port", "8080", "extra"},
        {"/l", "--spec-channel"},
        {"/l", "--claim", "tok", "--spec-channel"},
    };
    for (const auto& argv : refused) {
        const auto e = nr::test::error_from([&] { (void)parse_launcher_args(argv); });
        ASSERT_TRUE(e.has_value()) << argv.size();
        EXPECT_EQ(e->kind(), ErrorKind::LaunchFailed);
    }
}
