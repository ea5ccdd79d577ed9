// SPDX-License-Identifier: Apache-2.0
// How plan_session turns an adapter's protected home paths into mounts and
// into the launch spec (core/launch/protected_paths.h).
#include "core/plan/session_plan.h"

#include "config_fixtures.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace nr::core;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

namespace {

using Argv = std::vector<std::string>;

using nr::test::kHome;

Config config(const std::vector<std::string>& entries)
{
    auto c = nr::test::two_adapter_config();
    c.read_only_paths = {"/usr"};
    for (const auto& entry : entries) {
        c.adapters.at("claude").protected_home_paths.push_back(parse_protected_path(entry));
    }
    // What parse_config does once every adapter is read.
    c.protected_home_paths = merge_protected_paths({c.adapters.at("claude").protected_home_paths});
    return c;
}

SessionRequest request()
{
    SessionRequest r;
    r.owner = "alice";
    r.chat = "c-1";
    r.adapter = "claude";
    r.argv = {"claude"};
    return r;
}

SessionPlan plan(const Config& c, const SessionRequest& r = request())
{
    return plan_session(c, r, RunAsUser{"alice", 1000, 1000}, HostFacts{"/usr/libexec/launch", {}, {}}, "token");
}

// Every host mount of the plan, as "--option PATH" in order.
std::vector<std::string> mounts_of(const Argv& argv)
{
    std::vector<std::string> out;
    const auto sep = std::find(argv.begin(), argv.end(), "--");
    for (auto it = argv.begin(); it + 2 < sep; ++it) {
        if (*it == "--bind" || *it == "--ro-bind") {
            EXPECT_EQ(*(it + 1), *(it + 2)) << "a mount is not onto its own path";
            out.push_back(*it + " " + *(it + 1));
            it += 2;
        }
    }
    return out;
}

std::string home(const std::string& relative)
{
    return std::string(kHome) + "/" + relative;
}

} // namespace

TEST(AnAdapterWithoutProtectedHomePaths, MountsNothingBeneathTheHomeAndSendsNoList)
{
    const auto p = plan(config({}));
    for (const auto& mount : mounts_of(p.launch.bwrap_argv)) {
        EXPECT_EQ(mount.find(std::string(kHome) + "/"), std::string::npos) << mount;
    }
    EXPECT_EQ(p.launch.protected_paths, ProtectedPaths{});
}

TEST(EachProtectedHomePath, IsMountedReadOnlyAfterTheHomesWritableBind)
{
    const auto p = plan(config({".bashrc", ".claude/settings.json"}));
    EXPECT_THAT(mounts_of(p.launch.bwrap_argv),
                ElementsAre("--ro-bind /usr", "--bind /var/lib/nr/native-runtime/alice/chats/c-1/workspace",
                            "--bind " + std::string(kHome), "--ro-bind " + home(".bashrc"), "--bind " + home(".claude"),
                            "--ro-bind " + home(".claude/settings.json")));
}

TEST(TheDirectoriesOnTheWayToAProtectedPath, AreBoundOntoThemselvesBeforeIt)
{
    const auto p = plan(config({".config/gh/hosts.yml", ".config/gh/config.yml", ".codex/"}));
    EXPECT_THAT(mounts_of(p.launch.bwrap_argv),
                ElementsAre("--ro-bind /usr", "--bind /var/lib/nr/native-runtime/alice/chats/c-1/workspace",
                            "--bind " + std::string(kHome), "--ro-bind " + home(".codex"), "--bind " + home(".config"),
                            "--bind " + home(".config/gh"), "--ro-bind " + home(".config/gh/config.yml"),
                            "--ro-bind " + home(".config/gh/hosts.yml")));
}

TEST(TheLaunchSpec, CarriesTheProtectedPathsRelativeToTheHome)
{
    const auto p = plan(config({".claude/settings.json", ".claude/hooks/"}));
    EXPECT_EQ(p.launch.protected_paths.base, kHome);
    EXPECT_EQ(p.launch.protected_paths.base, p.home);
    EXPECT_THAT(p.launch.protected_paths.paths,
                ElementsAre(ProtectedPath{".claude/hooks", true}, ProtectedPath{".claude/settings.json", false}));
}

TEST(AnotherAdaptersProtectedPaths, AreProtectedInThisSessionTooBecauseTheHomeIsTheOwners)
{
    auto r = request();
    r.adapter = "codex";
    r.argv = {"codex"};
    const auto p = plan(config({".claude/settings.json"}), r);
    EXPECT_THAT(p.launch.protected_paths.paths, ElementsAre(ProtectedPath{".claude/settings.json", false}));
    EXPECT_THAT(mounts_of(p.launch.bwrap_argv), ::testing::Contains("--ro-bind " + home(".claude/settings.json")));
}

TEST(ASessionDirectoryOverlappingAProtectedPath, IsRefused)
{
    for (const auto* dir : {"/var/lib/nr/native-runtime/{owner}/home/.codex", // contains it
                            "/var/lib/nr/native-runtime/{owner}/home/.codex/config.toml/x",
                            "/var/lib/nr/native-runtime/{owner}"}) { // contains the home
        SCOPED_TRACE(dir);
        auto c = config({".codex/config.toml"});
        c.adapters.at("claude").session_dirs = {dir};
        NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, plan(c));
        EXPECT_THAT(e->what(), HasSubstr("overlaps the protected home path .codex/config.toml"));
    }
}

TEST(ASessionDirectoryBesideAProtectedPath, IsMountedAfterTheDirectoryOnTheWay)
{
    auto c = config({".codex/config.toml"});
    c.adapters.at("claude").session_dirs = {"/var/lib/nr/native-runtime/{owner}/home/.codex/sessions"};
    const auto p = plan(c);
    const auto mounts = mounts_of(p.launch.bwrap_argv);
    const auto pin = std::find(mounts.begin(), mounts.end(), "--bind " + home(".codex"));
    const auto dir = std::find(mounts.begin(), mounts.end(), "--bind " + home(".codex/sessions"));
    ASSERT_NE(pin, mounts.end());
    ASSERT_NE(dir, mounts.end());
    EXPECT_LT(pin, dir);
}

TEST(TheCanary, ProtectsNothing)
{
    const auto p = plan_canary(config({".bashrc"}), RunAsUser{"alice", 1000, 1000},
                               HostFacts{"/usr/libexec/launch", {}, {}}, "token", "/usr/bin/true");
    EXPECT_EQ(p.launch.protected_paths, ProtectedPaths{});
    EXPECT_THAT(p.launch.protected_paths.paths, IsEmpty());
}
