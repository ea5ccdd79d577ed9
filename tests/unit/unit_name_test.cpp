// SPDX-License-Identifier: Apache-2.0
#include "core/base/unit_name.h"

#include <gtest/gtest.h>

#include <string>

using namespace nr::core;

// Expected values come from `systemd-escape -- <input>` (systemd 252).
TEST(SystemdEscape, MatchesSystemdEscapeForTrickyInputs)
{
    EXPECT_EQ(systemd_escape("a-b"), "a\\x2db");
    EXPECT_EQ(systemd_escape("a@b"), "a\\x40b");
    EXPECT_EQ(systemd_escape(".x"), "\\x2ex");
    EXPECT_EQ(systemd_escape("x.y"), "x.y");
    EXPECT_EQ(systemd_escape("a/b"), "a-b");
    EXPECT_EQ(systemd_escape("\xc3\xbc"), "\\xc3\\xbc"); // ü
    EXPECT_EQ(systemd_escape("a:b_c"), "a:b_c");
    EXPECT_EQ(systemd_escape("a b"), "a\\x20b");
    EXPECT_EQ(systemd_escape("a\\b"), "a\\x5cb");
    EXPECT_EQ(systemd_escape("-x"), "\\x2dx");
    EXPECT_EQ(systemd_escape("/x"), "-x");
    EXPECT_EQ(systemd_escape("x/"), "x-");
    EXPECT_EQ(systemd_escape("a~b"), "a\\x7eb");
    EXPECT_EQ(systemd_escape("a\tb"), "a\\x09b");
    EXPECT_EQ(systemd_escape("\xc3\xa9-\xc3\xa9"), "\\xc3\\xa9\\x2d\\xc3\\xa9"); // é-é
}

TEST(SystemdEscape, EscapesOnlyALeadingDot)
{
    EXPECT_EQ(systemd_escape("..x"), "\\x2e.x");
    EXPECT_EQ(systemd_escape("a.b.c"), "a.b.c");
    EXPECT_EQ(systemd_escape("x."), "x.");
}

TEST(SystemdEscape, KeepsLettersDigitsAndEmptyInputUnchanged)
{
    EXPECT_EQ(systemd_escape("Z9az"), "Z9az");
    EXPECT_EQ(systemd_escape(""), "");
}

TEST(SystemdEscape, EscapesAnEmbeddedNulByte)
{
    EXPECT_EQ(systemd_escape(std::string("a\0b", 3)), "a\\x00b");
}

TEST(ASessionUnitName, EscapesDashesSoOwnerAndChatCannotCollide)
{
    EXPECT_EQ(session_unit_name("a-b", "c"), "native-runtime-a\\x2db-c.service");
    EXPECT_EQ(session_unit_name("a", "b-c"), "native-runtime-a-b\\x2dc.service");
    EXPECT_NE(session_unit_name("a-b", "c"), session_unit_name("a", "b-c"));
}

TEST(ASessionUnitName, IsAPureFunctionOfOwnerAndChat)
{
    EXPECT_EQ(session_unit_name("alice", "c1"), "native-runtime-alice-c1.service");
    EXPECT_EQ(session_unit_name("alice", "c1"), session_unit_name("alice", "c1"));
    EXPECT_NE(session_unit_name("alice", "c1"), session_unit_name("alice", "c2"));
    EXPECT_NE(session_unit_name("alice", "c1"), session_unit_name("bob", "c1"));
}

TEST(AnOwnerSlice, IsAChildOfTheTopSliceWithTheOwnerEscaped)
{
    EXPECT_EQ(kTopSlice, "nativeruntime.slice");
    EXPECT_EQ(owner_slice_name("alice"), "nativeruntime-alice.slice");
    // A dash would nest one level deeper (nativeruntime-a.slice/...-a-b.slice).
    EXPECT_EQ(owner_slice_name("a-b"), "nativeruntime-a\\x2db.slice");
    EXPECT_EQ(owner_slice_name("u@h.org"), "nativeruntime-u\\x40h.org.slice");
}

TEST(TheTopSlice, HasNoDashSoItIsAChildOfTheRootSliceItself)
{
    // systemd reads "a-b.slice" as a child of "a.slice".
    EXPECT_EQ(kTopSlice.find('-'), std::string_view::npos);
    EXPECT_TRUE(owner_slice_name("alice").starts_with(kTopSlice.substr(0, kTopSlice.size() - 6)));
}

TEST(AnOwnersSliceBeforeTheRename, KeepsItsOldNameForTheRecordsAndSessionsOfThatTime)
{
    EXPECT_EQ(legacy_owner_slice_name("alice"), "native-runtime-alice.slice");
    EXPECT_EQ(legacy_owner_slice_name("a-b"), "native-runtime-a\\x2db.slice");
}

TEST(IsSessionUnitName, RecognisesNamesThisProjectProduces)
{
    EXPECT_TRUE(is_session_unit_name("native-runtime-alice-c1.service"));
    EXPECT_TRUE(is_session_unit_name(session_unit_name("a-b", "c")));
    EXPECT_TRUE(is_session_unit_name(session_unit_name("u@h.org", "chat_1.x")));
    EXPECT_TRUE(is_session_unit_name(session_unit_name("A", "9")));
}

TEST(IsSessionUnitName, RejectsOtherUnits)
{
    EXPECT_FALSE(is_session_unit_name("sshd.service"));
    EXPECT_FALSE(is_session_unit_name("native-runtime.slice"));
    EXPECT_FALSE(is_session_unit_name("native-runtime-alice.slice"));
    EXPECT_FALSE(is_session_unit_name("native-runtime-alice-c1.slice"));
    EXPECT_FALSE(is_session_unit_name("native-runtimed.service"));
    EXPECT_FALSE(is_session_unit_name("native-runtime-.service"));
    EXPECT_FALSE(is_session_unit_name("xnative-runtime-alice-c1.service"));
    EXPECT_FALSE(is_session_unit_name("native-runtime-alice-c1.service.bak"));
}

TEST(IsSessionUnitName, RequiresExactlyOneDashWithBothHalvesNonEmpty)
{
    EXPECT_FALSE(is_session_unit_name("native-runtime-alice.service"));
    EXPECT_FALSE(is_session_unit_name("native-runtime--c1.service"));
    EXPECT_FALSE(is_session_unit_name("native-runtime-alice-.service"));
    EXPECT_FALSE(is_session_unit_name("native-runtime-a-b-c.service"));
    EXPECT_FALSE(is_session_unit_name("native-runtime--.service"));
}

TEST(IsSessionUnitName, RejectsNamesEscapingCouldNeverProduce)
{
    // A template instance of an operator's unit.
    EXPECT_FALSE(is_session_unit_name("native-runtime-alice-c1@2.service"));
    EXPECT_FALSE(is_session_unit_name("native-runtime-alice-c 1.service"));
    EXPECT_FALSE(is_session_unit_name("native-runtime-.alice-c1.service"));
    EXPECT_FALSE(is_session_unit_name("native-runtime-alice-.c1.service"));
    EXPECT_FALSE(is_session_unit_name("native-runtime-alice-c/1.service"));
}
