// Per-session quotas, pushed against by real hogs in a profile whose limits
// are small (tests/integration/config.yaml: probe-limited).

#include "fixture.h"

#include <gtest/gtest.h>

using namespace nr::itest;

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
