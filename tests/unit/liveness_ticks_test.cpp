#include "core/liveness_ticks.h"

#include <gtest/gtest.h>

using nr::core::LivenessTicks;

TEST(ATickAfterTheHelpersNameChangedOwner, RunsTheCheck)
{
    LivenessTicks ticks;
    EXPECT_TRUE(ticks.due(true));
    EXPECT_TRUE(ticks.due(true));
}

TEST(QuietTicks, RunTheCheckOnlyOnceTheSafetyNetIsReached)
{
    LivenessTicks ticks;
    for (unsigned i = 1; i < LivenessTicks::kSafetyNet; ++i) {
        EXPECT_FALSE(ticks.due(false)) << "tick " << i;
    }
    EXPECT_TRUE(ticks.due(false));
    EXPECT_FALSE(ticks.due(false));
}

TEST(ACheckForAChange, RestartsTheSafetyNet)
{
    LivenessTicks ticks;
    for (unsigned i = 1; i < LivenessTicks::kSafetyNet; ++i) {
        ticks.due(false);
    }
    EXPECT_TRUE(ticks.due(true));
    EXPECT_FALSE(ticks.due(false));
}
