// SPDX-License-Identifier: Apache-2.0
#include "core/launch/denial_tally.h"

#include "core/plan/seccomp_rules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>

using namespace nr::core;
using namespace std::chrono_literals;

TEST(TheSessionsSeccompPolicy, HandsListenersAndIoUringToTheLauncherAndKeepsTheRestForBwrap)
{
    SeccompPolicy policy;
    policy.denied = {{"listen", EPERM, std::nullopt},
                     {"mount", EPERM, std::nullopt},
                     {"io_uring_setup", ENOSYS, std::nullopt},
                     {"accept4", EPERM, ArgumentMatch{1, 1, 1}}};
    const auto split = split_supervised(policy);
    EXPECT_EQ(split.supervised,
              (std::vector<SyscallRule>{{"listen", EPERM, std::nullopt}, {"io_uring_setup", ENOSYS, std::nullopt}}));
    EXPECT_EQ(split.bwrap.denied,
              (std::vector<SyscallRule>{{"mount", EPERM, std::nullopt}, {"accept4", EPERM, ArgumentMatch{1, 1, 1}}}))
        << "a rule with an argument match stays with bwrap";
    EXPECT_TRUE(split.bwrap.kill_foreign_abis);
}

TEST(TheRealPolicy, StillDeniesEveryCallItDeniedBeforeTheSplit)
{
    const auto policy = seccomp_policy_for(AdapterProfile{});
    const auto split = split_supervised(policy);
    EXPECT_EQ(split.supervised.size() + split.bwrap.denied.size(), policy.denied.size());
    EXPECT_FALSE(split.supervised.empty());
}

TEST(ASessionThatKeepsBeingDenied, GetsABoundedNumberOfRecordsButEveryCount)
{
    DenialTally tally(3, 10s);
    const auto t0 = DenialTally::Clock::time_point{} + 100s;
    int logged = 0;
    for (int i = 0; i < 100; ++i) {
        logged += tally.note(i % 2 == 0 ? "listen" : "accept4", t0 + std::chrono::milliseconds(i)) ? 1 : 0;
    }
    EXPECT_EQ(logged, 3);
    EXPECT_EQ(tally.total(), 100U);
    EXPECT_EQ(tally.suppressed_since_last(), 97U);
    EXPECT_EQ(tally.summary(), "accept4=50 listen=50");

    // A new interval lets records through again.
    EXPECT_TRUE(tally.note("listen", t0 + 11s));
    tally.mark_logged();
    EXPECT_EQ(tally.suppressed_since_last(), 0U);
}

TEST(ALoggedDenial, NamesTheCallItsCountsAndWhatWasLeftOut)
{
    DenialTally tally(1, 10s);
    const auto t0 = DenialTally::Clock::time_point{} + 100s;
    EXPECT_TRUE(tally.note("listen", t0));
    tally.mark_logged();
    EXPECT_FALSE(tally.note("listen", t0 + 1s));
    EXPECT_TRUE(tally.note("listen", t0 + 20s));
    const auto record = denial_record("listen", EPERM, tally);
    EXPECT_EQ(record.event, LogEvent::SyscallsDenied);
    EXPECT_EQ(record.priority, Priority::Notice);
    const auto fields = journal_fields(record, "native-runtime-launch");
    EXPECT_NE(std::find(fields.begin(), fields.end(), "NATIVE_RUNTIME_SYSCALL=listen"), fields.end());
    EXPECT_NE(std::find(fields.begin(), fields.end(), "NATIVE_RUNTIME_DENIED_COUNT=3"), fields.end());
    EXPECT_NE(std::find(fields.begin(), fields.end(), "NATIVE_RUNTIME_SUPPRESSED=1"), fields.end());

    const auto summary = journal_fields(denial_summary_record(tally), "native-runtime-launch");
    EXPECT_NE(std::find(summary.begin(), summary.end(), "NATIVE_RUNTIME_DENIALS=listen=3"), summary.end());
}
