// SPDX-License-Identifier: Apache-2.0
#include "core/base/hex.h"
#include "core/base/joined.h"
#include "core/journal/journal_fields.h"

#include <gtest/gtest.h>

#include <string>

using namespace nr::core;

TEST(RawBytes, BecomeTwoLowercaseHexDigitsEach)
{
    EXPECT_EQ(to_hex(std::string("\x00\x0f\xa5\xff", 4)), "000fa5ff");
    EXPECT_EQ(to_hex(""), "");
}

TEST(AJoinedList, PutsTheSeparatorOnlyBetweenItems)
{
    EXPECT_EQ(joined({"a", "b", "c"}, "; "), "a; b; c");
    EXPECT_EQ(joined({"only"}, ", "), "only");
    EXPECT_EQ(joined({}, ", "), "");
}

TEST(AJournalFieldAssignment, IsTheNameAnEqualsSignAndTheValue)
{
    EXPECT_EQ(field_assignment(kFieldOwner, "alice"), "NATIVE_RUNTIME_OWNER=alice");
    EXPECT_EQ(field_assignment(kFieldChat, ""), "NATIVE_RUNTIME_CHAT=");
}
