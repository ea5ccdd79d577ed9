// SPDX-License-Identifier: Apache-2.0
#include "core/bus/match_rules.h"

#include "test_support.h"

#include <gtest/gtest.h>

using namespace nr::core;

TEST(AMatchComponent, QuotesItsValue)
{
    EXPECT_EQ(match_component("arg1", "alice"), "arg1='alice'");
}

TEST(AMatchComponentWhoseValueTheTwoParsersWouldReadDifferently, IsRefused)
{
    for (const auto* value : {"a\\x2db", "it's", "a,b"}) {
        NR_EXPECT_REFUSED(error, ErrorKind::InvalidArgument, match_component("arg0", value));
    }
}

TEST(TheUnitChangesRule, MatchesTheUnitInterfaceOfEveryUnitOfSystemd)
{
    EXPECT_EQ(unit_changes_match(),
              "type='signal',sender='org.freedesktop.systemd1',interface='org.freedesktop.DBus.Properties',"
              "member='PropertiesChanged',path_namespace='/org/freedesktop/systemd1/unit',"
              "arg0='org.freedesktop.systemd1.Unit'");
}

TEST(TheNameDeparturesRule, MatchesOnlyNamesLeftWithoutAnOwner)
{
    EXPECT_EQ(name_departures_match(), "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                                       "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg2=''");
}

TEST(TheNameOwnerChangesRule, FollowsOneName)
{
    EXPECT_EQ(name_owner_changes_match("org.metis.NativeRuntime1"),
              "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
              "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.metis.NativeRuntime1'");
}

TEST(TheSessionSignalsRule, SelectsOneSessionByOwnerAndChat)
{
    EXPECT_EQ(session_signals_match("alice", "chat-1"),
              "type='signal',sender='org.metis.NativeRuntime1',path='/org/metis/NativeRuntime1',"
              "interface='org.metis.NativeRuntime1.Manager',arg1='alice',arg2='chat-1'");
}

TEST(TheSessionSignalsRuleForAnInvalidId, IsRefused)
{
    NR_EXPECT_REFUSED(quote, ErrorKind::InvalidArgument, session_signals_match("alice'", "c"));
    NR_EXPECT_REFUSED(empty, ErrorKind::InvalidArgument, session_signals_match("alice", ""));
}
