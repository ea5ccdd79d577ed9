// SPDX-License-Identifier: Apache-2.0
// The gateway's per-owner request budget: a sliding window of the owner's
// relayed requests (core/gateway/request_budget.h).

#include "core/gateway/request_budget.h"
#include "test_support.h"

#include <gtest/gtest.h>

using nr::core::RequestBudget;

namespace {

using nr::test::kSec;
constexpr std::uint64_t kHour = 3600 * kSec;

} // namespace

TEST(ARequestBudget, AdmitsUpToItsLimitThenRefusesWithTheWaitForTheOldest)
{
    RequestBudget budget;
    EXPECT_TRUE(budget.admit("alice", 2, kHour, 10 * kSec).admitted);
    const auto second = budget.admit("alice", 2, kHour, 70 * kSec);
    EXPECT_TRUE(second.admitted);
    EXPECT_EQ(second.used, 2U);
    const auto third = budget.admit("alice", 2, kHour, 100 * kSec);
    EXPECT_FALSE(third.admitted);
    EXPECT_EQ(third.used, 2U);
    EXPECT_EQ(third.retry_after_sec, 3600U + 10U - 100U);
}

TEST(ARequestBudget, AdmitsAgainOnceTheOldestRequestLeavesTheWindow)
{
    RequestBudget budget;
    (void)budget.admit("alice", 1, kHour, 0);
    EXPECT_FALSE(budget.admit("alice", 1, kHour, kHour - 1).admitted);
    const auto later = budget.admit("alice", 1, kHour, kHour);
    EXPECT_TRUE(later.admitted);
    EXPECT_EQ(later.used, 1U);
}

TEST(ARequestBudget, NeverLetsTwiceTheLimitThroughAcrossAWindowsBoundary)
{
    RequestBudget budget;
    (void)budget.admit("alice", 3, kHour, kHour - 3);
    (void)budget.admit("alice", 3, kHour, kHour - 2);
    (void)budget.admit("alice", 3, kHour, kHour - 1);
    EXPECT_FALSE(budget.admit("alice", 3, kHour, kHour + 1).admitted);
}

TEST(ARequestBudget, CountsEachOwnerApart)
{
    RequestBudget budget;
    (void)budget.admit("alice", 1, kHour, 0);
    EXPECT_FALSE(budget.admit("alice", 1, kHour, 1).admitted);
    EXPECT_TRUE(budget.admit("bob", 1, kHour, 1).admitted);
}

TEST(ARequestBudget, OfZeroAdmitsEverythingAndKeepsNothing)
{
    RequestBudget budget;
    for (std::uint64_t i = 0; i < 10; ++i) {
        EXPECT_TRUE(budget.admit("alice", 0, kHour, i).admitted);
    }
    EXPECT_EQ(budget.tracked_owners(), 0U);
}

TEST(ARequestBudget, LoweredByANewerRegistrationAppliesAtOnce)
{
    RequestBudget budget;
    for (std::uint64_t i = 0; i < 5; ++i) {
        (void)budget.admit("alice", 10, kHour, i);
    }
    EXPECT_FALSE(budget.admit("alice", 3, kHour, 10).admitted);
}

TEST(ARefusal, AsksForAtLeastOneSecond)
{
    RequestBudget budget;
    (void)budget.admit("alice", 1, kHour, 0);
    EXPECT_EQ(budget.admit("alice", 1, kHour, kHour - 1).retry_after_sec, 1U);
}
