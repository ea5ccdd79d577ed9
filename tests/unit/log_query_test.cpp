// SPDX-License-Identifier: Apache-2.0
#include "core/journal/log_query.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace nr::core;

namespace {

using Terms = std::vector<std::vector<std::string>>;

} // namespace

TEST(AnOwnersLogs, TrustTheHelperTheGatewayTheOwnersSliceAndSystemdAboutTheOwnersUnits)
{
    const auto terms = session_log_terms("alice", "",
                                         {"native-runtime-alice-c1.service", "native-runtime-alicex-c1.service",
                                          "sshd.service", "native-runtime-bob-c1.service"});
    EXPECT_EQ(terms, (Terms{{"_UID=0", "_SYSTEMD_UNIT=native-runtimed.service", "NATIVE_RUNTIME_OWNER=alice"},
                            {"_SYSTEMD_UNIT=native-runtime-gateway.service", "NATIVE_RUNTIME_OWNER=alice"},
                            {"_SYSTEMD_SLICE=nativeruntime-alice.slice"},
                            {"_SYSTEMD_SLICE=native-runtime-alice.slice"},
                            {"_PID=1", "_UID=0", "UNIT=native-runtime-alice-c1.service"}}));
}

TEST(OneChatsLogs, TrustTheHelperTheGatewaySystemdAboutItsUnitAndItsUnitsProcesses)
{
    const auto terms = session_log_terms("bob-x", "c1");
    EXPECT_EQ(terms, (Terms{{"_UID=0", "_SYSTEMD_UNIT=native-runtimed.service", "NATIVE_RUNTIME_OWNER=bob-x",
                             "NATIVE_RUNTIME_CHAT=c1"},
                            {"_SYSTEMD_UNIT=native-runtime-gateway.service", "NATIVE_RUNTIME_OWNER=bob-x",
                             "NATIVE_RUNTIME_CHAT=c1"},
                            {"_PID=1", "_UID=0", "UNIT=native-runtime-bob\\x2dx-c1.service"},
                            {"_SYSTEMD_UNIT=native-runtime-bob\\x2dx-c1.service"}}));
}

TEST(NoLogTerm, MatchesOnAFieldAnyClientCanSendAlone)
{
    // Every term has one field journald sets itself (leading '_').
    for (const auto& terms :
         {session_log_terms("alice", "c1"), session_log_terms("alice", "", {"native-runtime-alice-c.service"})}) {
        for (const auto& term : terms) {
            bool anchored = false;
            for (const auto& match : term) {
                anchored = anchored || match.front() == '_';
            }
            EXPECT_TRUE(anchored) << term.front();
        }
    }
}

TEST(ALogQueryWithABadId, IsRefused)
{
    NR_EXPECT_REFUSED(owner, ErrorKind::InvalidArgument, session_log_terms("a=b", ""));
    NR_EXPECT_REFUSED(chat, ErrorKind::InvalidArgument, session_log_terms("alice", "x\ny"));
}

TEST(OwnerUnits, AreOnlyThatOwnersSessionUnits)
{
    EXPECT_EQ(owner_units("al", {"native-runtime-al-c.service", "native-runtime-alice-c.service",
                                 "native-runtime-al.slice", "native-runtime-al-.service"}),
              (std::set<std::string>{"native-runtime-al-c.service"}));
}

TEST(TheJournalctlLine, ReadsTheSystemJournalQuietlyWithTheTermsAsMatchesAfterTheOptions)
{
    JournalctlQuery query;
    query.terms = {{"_UID=0", "NATIVE_RUNTIME_OWNER=alice"}, {"_PID=1", "UNIT=u.service"}, {"_SYSTEMD_UNIT=u.service"}};
    EXPECT_EQ(journalctl_argv(query),
              (std::vector<std::string>{"/usr/bin/journalctl", "--quiet", "--output=short", "--", "_UID=0",
                                        "NATIVE_RUNTIME_OWNER=alice", "+", "_PID=1", "UNIT=u.service", "+",
                                        "_SYSTEMD_UNIT=u.service"}));
}

TEST(TheJournalctlLine, CarriesEveryOptionOfLogs)
{
    JournalctlQuery query;
    query.terms = {{"_SYSTEMD_SLICE=native-runtime-alice.slice"}};
    query.lines = 50;
    query.since = "-1h";
    query.json = true;
    query.no_pager = true;
    query.cursor_file = "/tmp/d/cursor";
    EXPECT_EQ(journalctl_argv(query),
              (std::vector<std::string>{"/usr/bin/journalctl", "--quiet", "--output=json", "--all", "--no-pager",
                                        "--lines=50", "--since=-1h", "--cursor-file=/tmp/d/cursor", "--",
                                        "_SYSTEMD_SLICE=native-runtime-alice.slice"}));
}

TEST(ASinceValue, StaysInsideItsOwnOptionWordWhateverItSays)
{
    for (const auto* since : {"--merge", "-D/tmp/x", "x + _UID=1002", "", "-- _PID=1"}) {
        JournalctlQuery query;
        query.terms = {{"_UID=0"}};
        query.since = since;
        const auto argv = journalctl_argv(query);
        const auto separator = std::find(argv.begin(), argv.end(), "--");
        ASSERT_NE(separator, argv.end());
        EXPECT_EQ(std::vector<std::string>(separator + 1, argv.end()), std::vector<std::string>{"_UID=0"}) << since;
        EXPECT_EQ(std::count(argv.begin(), separator, std::string("--since=") + since), *since == 0 ? 0 : 1) << since;
        EXPECT_EQ(journalctl_since_check_argv(since).back(), std::string("--since=") + since);
    }
}
