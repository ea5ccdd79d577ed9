// SPDX-License-Identifier: Apache-2.0
#include "core/base/unit_state.h"

#include <gtest/gtest.h>

using namespace nr::core;

TEST(AFailedUnit, HasEnded)
{
    EXPECT_TRUE(unit_has_ended("failed", 0));
    EXPECT_TRUE(unit_has_ended("failed", 1234));
}

TEST(AnInactiveUnitThatHadStarted, HasEnded)
{
    EXPECT_TRUE(unit_has_ended("inactive", 1234));
}

TEST(AnInactiveUnitWhoseStartJobIsStillQueued, HasNotEnded)
{
    EXPECT_FALSE(unit_has_ended("inactive", 0));
}

TEST(AUnitThatIsStartingRunningOrStopping, HasNotEnded)
{
    for (const auto* state : {"activating", "active", "reloading", "deactivating", ""}) {
        EXPECT_FALSE(unit_has_ended(state, 1234)) << state;
    }
}

TEST(OnlyInactiveAndFailed, AreStoppedStates)
{
    EXPECT_TRUE(is_stopped_state("inactive"));
    EXPECT_TRUE(is_stopped_state("failed"));
    for (const auto* state : {"activating", "active", "reloading", "deactivating", ""}) {
        EXPECT_FALSE(is_stopped_state(state)) << state;
    }
}
