// SPDX-License-Identifier: Apache-2.0
// A workspace the worker names is checked before anything is mounted: it
// must be reachable without symlinks, owned by the session user, and no
// ancestor may let someone else swap it. Each refusal has an accepted twin.

#include "fixture.h"

#include <gtest/gtest.h>

using namespace nr::itest;

namespace {

constexpr const char* kRoot = "/var/lib/nr-ws-tests";

void must(const std::vector<std::string>& argv)
{
    const auto outcome = run(argv);
    ASSERT_EQ(outcome.status, 0) << argv.front() << ": " << outcome.err;
}

Outcome run_in(const std::string& workspace, const std::string& chat)
{
    return run(as_user(kWorker, {kCtl, "run", "--owner", "alice", "--chat", chat, "--adapter", "shell", "--workspace",
                                 workspace, "--", "sh", "-c", "pwd; touch made-inside"}));
}

void expect_invalid_path(const Outcome& outcome, const std::string& detail)
{
    EXPECT_EQ(outcome.status, 65);
    EXPECT_EQ(outcome.out, "");
    EXPECT_NE(outcome.err.find("org.metis.NativeRuntime1.Error.InvalidPath"), std::string::npos) << outcome.err;
    EXPECT_NE(outcome.err.find(detail), std::string::npos) << outcome.err;
}

class ARequestedWorkspace : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        must({"install", "-d", "-m", "0755", kRoot});
        must({"install", "-d", "-o", kWorker, "-m", "0700", std::string(kRoot) + "/mine"});
        must({"ln", "-sfn", std::string(kRoot) + "/mine", std::string(kRoot) + "/link"});
        must({"install", "-d", "-o", kOutsider, "-m", "0700", std::string(kRoot) + "/theirs"});
        must({"install", "-d", "-m", "0777", std::string(kRoot) + "/open"});
        must({"install", "-d", "-o", kWorker, "-m", "0700", std::string(kRoot) + "/open/ws"});
        must({"install", "-d", "-m", "1777", std::string(kRoot) + "/sticky"});
        must({"install", "-d", "-o", kWorker, "-m", "0700", std::string(kRoot) + "/sticky/ws"});
    }
};

} // namespace

TEST_F(ARequestedWorkspace, OwnedByTheWorkerIsMountedWritable)
{
    const auto outcome = run_in(std::string(kRoot) + "/mine", "ws-mine");
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(outcome.out, std::string(kRoot) + "/mine\n");
    EXPECT_EQ(run({"test", "-f", std::string(kRoot) + "/mine/made-inside"}).status, 0);
}

TEST_F(ARequestedWorkspace, ThatIsASymlinkIsRefused)
{
    expect_invalid_path(run_in(std::string(kRoot) + "/link", "ws-link"), "symlink");
}

TEST_F(ARequestedWorkspace, OwnedBySomeoneElseIsRefused)
{
    expect_invalid_path(run_in(std::string(kRoot) + "/theirs", "ws-theirs"), "not owned by the session user");
}

TEST_F(ARequestedWorkspace, BelowAWorldWritableNonStickyDirectoryIsRefused)
{
    expect_invalid_path(run_in(std::string(kRoot) + "/open/ws", "ws-open"), "without the sticky bit");
}

TEST_F(ARequestedWorkspace, BelowAStickyWorldWritableDirectoryIsAccepted)
{
    const auto outcome = run_in(std::string(kRoot) + "/sticky/ws", "ws-sticky");
    EXPECT_EQ(outcome.status, 0) << outcome.err;
}

TEST_F(ARequestedWorkspace, InsideTheAppDataDirectoryIsRefused)
{
    expect_invalid_path(run_in(std::string(kDataDir) + "/native-runtime/bob/home", "ws-data"), kDataDir);
}

TEST_F(ARequestedWorkspace, WithADotDotComponentIsRefused)
{
    expect_invalid_path(run_in(std::string(kRoot) + "/mine/../theirs", "ws-dots"), "canonical");
}
