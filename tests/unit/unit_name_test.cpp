#include "core/unit_name.h"

#include <gtest/gtest.h>

using namespace nr::core;

TEST(ASessionUnitName, EscapesDashesSoOwnerAndChatCannotCollide)
{
    EXPECT_EQ(session_unit_name("a-b", "c"), "native-runtime-a\\x2db-c.service");
    EXPECT_EQ(session_unit_name("a", "b-c"), "native-runtime-a-b\\x2dc.service");
    EXPECT_NE(session_unit_name("a-b", "c"), session_unit_name("a", "b-c"));
}
