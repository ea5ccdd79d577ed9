// SPDX-License-Identifier: Apache-2.0
// The rule `native-runtimectl stop` waits with: one unit's state changes.
#include "ctl/unit_stop_wait.h"

#include "core/base/error.h"

#include <gtest/gtest.h>

TEST(TheStopWaitRule, MatchesTheUnitInterfaceChangesOfOneUnitOnly)
{
    EXPECT_EQ(nr::ctl::unit_state_match("/org/freedesktop/systemd1/unit/native_2druntime_2dalice_2dc1_2eservice"),
              "type='signal',sender='org.freedesktop.systemd1',"
              "path='/org/freedesktop/systemd1/unit/native_2druntime_2dalice_2dc1_2eservice',"
              "interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
              "arg0='org.freedesktop.systemd1.Unit'");
}

TEST(TheStopWaitRuleForAPathTheParsersWouldReadDifferently, IsRefused)
{
    EXPECT_THROW((void)nr::ctl::unit_state_match("/org/freedesktop/systemd1/unit/a'b"), nr::core::Error);
}
