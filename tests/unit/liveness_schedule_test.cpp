// SPDX-License-Identifier: Apache-2.0
#include "core/cli/liveness_schedule.h"

#include <gtest/gtest.h>

using nr::core::LivenessSchedule;
using namespace std::chrono_literals;

namespace {

const LivenessSchedule::Clock::time_point kStart{1000s};

} // namespace

TEST(AChangeOfTheHelpersOwner, MakesTheCheckDueAtOnce)
{
    LivenessSchedule schedule(kStart);
    EXPECT_TRUE(schedule.due(true, kStart + 1ms));
    EXPECT_TRUE(schedule.due(true, kStart + 2ms));
}

TEST(WithoutAChange, TheCheckIsDueOnlyOnceTheSafetyNetsTimeCame)
{
    LivenessSchedule schedule(kStart);
    EXPECT_FALSE(schedule.due(false, kStart + 1s));
    EXPECT_FALSE(schedule.due(false, kStart + LivenessSchedule::kSafetyNet - 1ms));
    EXPECT_TRUE(schedule.due(false, kStart + LivenessSchedule::kSafetyNet));
    EXPECT_FALSE(schedule.due(false, kStart + LivenessSchedule::kSafetyNet + 1s));
}

TEST(ACheckForAChange, RestartsTheSafetyNet)
{
    LivenessSchedule schedule(kStart);
    EXPECT_TRUE(schedule.due(true, kStart + 5s));
    EXPECT_FALSE(schedule.due(false, kStart + LivenessSchedule::kSafetyNet));
    EXPECT_TRUE(schedule.due(false, kStart + 5s + LivenessSchedule::kSafetyNet));
}

TEST(TheWait, LastsUntilTheSafetyNetAndNeverLessThanNothing)
{
    LivenessSchedule schedule(kStart);
    EXPECT_EQ(schedule.wait(kStart), LivenessSchedule::kSafetyNet);
    EXPECT_EQ(schedule.wait(kStart + 9500us), 9991ms);
    EXPECT_EQ(schedule.wait(kStart + 1h), 0ms);
}
