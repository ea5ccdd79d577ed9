// SPDX-License-Identifier: Apache-2.0
// What a session can learn about or gain from the processes around it.

#include "fixture.h"

#include <gtest/gtest.h>

using namespace nr::itest;

TEST(ACanaryInTheWorkersArgv, IsFoundNowhereUnderTheSessionsProc)
{
    const auto canary = random_key("nr-argv-canary-");
    // The shell stays alive as the parent with the canary as its $0.
    const std::string outside_script = std::string(kProbe) + " find-canary " + hex(canary) + "; exit $?";
    const auto control = run(as_user(kWorker, {"sh", "-c", outside_script, canary}));
    EXPECT_NE(parse_lines(control.out)["canary_found"], "none") << "positive control: the parent's argv is visible";

    const std::string inside_script = std::string(kCtl) +
                                      " run --owner alice --chat argv --adapter probe -- nr-probe find-canary " +
                                      hex(canary) + "; exit $?";
    const auto inside = run(as_user(kWorker, {"sh", "-c", inside_script, canary}));
    EXPECT_EQ(inside.status, 0) << inside.err;
    EXPECT_EQ(parse_lines(inside.out)["canary_found"], "none");
}

TEST(ASetuidRootBinaryInTheWorkspace, RunsWithoutPrivilegeInsideTheSession)
{
    const std::string dir = "/var/lib/nr-suid-test";
    const std::string binary = dir + "/suid-probe";
    ASSERT_EQ(run({"install", "-d", "-o", kWorker, "-m", "0700", dir}).status, 0);
    ASSERT_EQ(run({"install", "-o", "root", "-g", "root", "-m", "4755", kProbe, binary}).status, 0);

    auto outside = parse_lines(run(as_user(kWorker, {binary, "ids"})).out);
    EXPECT_EQ(outside["euid"], "0") << "positive control: the setuid bit works outside";

    const auto inside = run(as_user(kWorker, {kCtl, "run", "--owner", "alice", "--chat", "suid", "--adapter", "shell",
                                              "--workspace", dir, "--", "sh", "-c", "./suid-probe ids"}));
    EXPECT_EQ(inside.status, 0) << inside.err;
    auto ids = parse_lines(inside.out);
    EXPECT_EQ(ids["euid"], ids["uid"]);
    EXPECT_NE(ids["euid"], "0");
}

TEST(AProcessOutsideTheSession, CannotBeSignalledFromInside)
{
    // A process of the session's own UID, outside the session.
    Background target(as_user(kWorker, {"sleep", "30"}));
    std::string pid;
    ASSERT_TRUE(eventually(10, [&] {
        pid = run({"pgrep", "-u", kWorker, "-x", "sleep", "-n"}).out;
        return !pid.empty();
    }));
    pid.pop_back();
    EXPECT_EQ(run(as_user(kWorker, {"kill", "-0", pid})).status, 0) << "positive control: same UID outside";
    const auto inside = run(as_user(
        kWorker, ctl_run("alice", "signal-out", "shell", {"sh", "-c", "kill -TERM " + pid + " && echo delivered"})));
    EXPECT_NE(inside.status, 0);
    EXPECT_EQ(inside.out, "");
    EXPECT_EQ(run({"kill", "-0", pid}).status, 0) << "the target is still alive";
    (void)run({"kill", "-KILL", pid});
}
