// SPDX-License-Identifier: Apache-2.0
// Per-session quotas, pushed against by real hogs in a profile whose limits
// are small (tests/integration/config.yaml: probe-limited).

#include "fixture.h"
#include "journal_records.h"

#include <gtest/gtest.h>

#include <sys/vfs.h>

#include <linux/magic.h>

using namespace nr::itest;

namespace {

// A real host's (cgroup v2 only), or the harness's v1 hybrid.
bool cgroup_v2_only()
{
    struct statfs fs {};
    return ::statfs("/sys/fs/cgroup", &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
}

} // namespace

TEST(FillingTheSessionsTmp, StopsAtItsSizeWithEnospc)
{
    auto inside = parse_lines(
        run(as_user(kWorker, ctl_run("alice", "quota-tmp", "probe-limited", {"nr-probe", "fill-tmp"}))).out);
    EXPECT_EQ(inside["fill_tmp"], "ENOSPC");
    EXPECT_LE(std::stoi(inside["written_mib"]), 4);
    auto unlimited =
        parse_lines(run(as_user(kWorker, ctl_run("alice", "quota-tmp2", "probe", {"nr-probe", "fill-tmp"}))).out);
    EXPECT_GT(std::stoi(unlimited["written_mib"]), 4) << "control: the default profile's /tmp is larger";
}

TEST(AForkBomb, IsContainedByTheTasksLimit)
{
    auto inside = parse_lines(run(as_user(kWorker, ctl_run("alice", "quota-fork", "probe-limited",
                                                           {"nr-probe", "fork-until-refused", "200"})))
                                  .out);
    EXPECT_EQ(inside["fork_error"], "EAGAIN");
    EXPECT_LT(std::stoi(inside["forks"]), 16);
    auto control = parse_lines(
        run(as_user(kWorker, ctl_run("alice", "quota-fork2", "probe", {"nr-probe", "fork-until-refused", "40"}))).out);
    EXPECT_EQ(control["forks"], "40") << "control: the default profile allows more tasks";
}

TEST(ASessionPastItsRuntimeLimit, EndsAndTheCliReportsTheLimit)
{
    const auto outcome =
        run(as_user(kWorker, ctl_run("alice", "quota-time", "probe-limited", {"nr-probe", "sleep", "30"})));
    EXPECT_EQ(outcome.status, 124) << outcome.err;
    EXPECT_EQ(outcome.out, "");
}

TEST(AMemoryHog, IsKilledAtItsLimitWhileANeighbourSessionKeepsRunning)
{
    Background neighbour(as_user(kWorker, ctl_run("alice", "quotaneighbour", "shell", {"sh", "-c", "exec sleep 300"})));
    const std::string neighbour_unit = "native-runtime-alice-quotaneighbour.service";
    ASSERT_TRUE(eventually(60, [&] { return unit_property(neighbour_unit, "ActiveState") == "active"; }))
        << neighbour.wait().err;

    const auto hog =
        run(as_user(kWorker, ctl_run("alice", "quota-mem", "probe-limited", {"nr-probe", "eat-memory", "512"})));
    // The CLI exits 137 for both ways systemd sees the kill.
    EXPECT_EQ(hog.status, 128 + 9) << hog.err;
    auto eaten = parse_lines(hog.out);
    EXPECT_EQ(eaten.count("eat"), 0U) << "the hog must not finish";
    EXPECT_LE(std::stoi(eaten["eaten_mib"]), 64);
    // On cgroup v2 systemd reads the kernel's OOM kill in the unit's own
    // cgroup from memory.events and says so (result oom-kill); on the
    // harness's cgroup v1 it sees only the unit's main process, the
    // supervisor, exit with 137 for its killed sandbox (exit-code).
    const auto ended = last_record({std::string("MESSAGE_ID=") + kSessionEnded,
                                    R"(OBJECT_SYSTEMD_UNIT=native-runtime-alice-quota\x2dmem.service)"});
    EXPECT_EQ(field(ended, "NATIVE_RUNTIME_RESULT"), cgroup_v2_only() ? "oom-kill" : "exit-code") << ended.dump();
    EXPECT_EQ(unit_property(neighbour_unit, "ActiveState"), "active");

    auto control = parse_lines(
        run(as_user(kWorker, ctl_run("alice", "quota-mem2", "probe", {"nr-probe", "eat-memory", "128"}))).out);
    EXPECT_EQ(control["eat"], "done") << "control: the default profile's 512M holds 128 MiB";
    EXPECT_EQ(run(as_user(kWorker, {kCtl, "stop", "--owner", "alice", "--chat", "quotaneighbour"})).status, 0);
    (void)neighbour.wait();
}

TEST(AnOwnerAtItsSliceTaskLimit, CannotForkMoreWhileAnotherOwnerStillCan)
{
    // 80 sleepers stay below the session's TasksMax (128) but fill most of
    // the owner's slice (owner_limits.tasks_max: 96).
    Background greedy(as_user(
        kWorker, ctl_run("greedy", "hold", "shell", {"sh", "-c", "for i in $(seq 80); do sleep 300 & done; wait"})));
    ASSERT_TRUE(eventually(60, [] {
        const auto tasks = unit_property("nativeruntime-greedy.slice", "TasksCurrent");
        return !tasks.empty() && tasks != "[not set]" && std::stoul(tasks) >= 80;
    }));
    EXPECT_EQ(unit_property("nativeruntime-greedy.slice", "TasksMax"), "96");

    auto squeezed = parse_lines(
        run(as_user(kWorker, ctl_run("greedy", "more", "probe", {"nr-probe", "fork-until-refused", "40"}))).out);
    EXPECT_EQ(squeezed["fork_error"], "EAGAIN");
    EXPECT_LT(std::stoi(squeezed["forks"]), 40);

    auto other = parse_lines(
        run(as_user(kWorker, ctl_run("modest", "more", "probe", {"nr-probe", "fork-until-refused", "40"}))).out);
    EXPECT_EQ(other["forks"], "40") << "control: another owner's slice is not affected";

    EXPECT_EQ(run(as_user(kWorker, {kCtl, "stop", "--owner", "greedy", "--chat", "hold"})).status, 0);
    (void)greedy.wait();
}
