#include "core/journal/log_query.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

using namespace nr::core;

namespace {

using Terms = std::vector<std::vector<std::string>>;

constexpr std::uint64_t kSec = 1000000;

// Local time as mktime sees it, so the test holds in any TZ.
std::uint64_t local(int year, int month, int day, int hour, int minute, int second)
{
    std::tm tm{};
    tm.tm_year = year - 1900;
    tm.tm_mon = month - 1;
    tm.tm_mday = day;
    tm.tm_hour = hour;
    tm.tm_min = minute;
    tm.tm_sec = second;
    tm.tm_isdst = -1;
    return static_cast<std::uint64_t>(std::mktime(&tm)) * kSec;
}

} // namespace

TEST(AnOwnersLogs, TrustTheHelperTheGatewayTheOwnersSliceAndSystemdAboutTheOwnersUnits)
{
    const auto terms = session_log_terms("alice", "",
                                         {"native-runtime-alice-c1.service", "native-runtime-alicex-c1.service",
                                          "sshd.service", "native-runtime-bob-c1.service"});
    EXPECT_EQ(terms, (Terms{{"_UID=0", "_SYSTEMD_UNIT=native-runtimed.service", "NATIVE_RUNTIME_OWNER=alice"},
                            {"_SYSTEMD_UNIT=native-runtime-gateway.service", "NATIVE_RUNTIME_OWNER=alice"},
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

TEST(Since, AcceptsJournalctlsCommonForms)
{
    const auto now = local(2026, 12, 2, 20, 14, 38);
    EXPECT_EQ(parse_since("now", now), now);
    EXPECT_EQ(parse_since("@1796240702", now), 1796240702 * kSec);
    EXPECT_EQ(parse_since("-5min", now), now - 300 * kSec);
    EXPECT_EQ(parse_since("-30s", now), now - 30 * kSec);
    EXPECT_EQ(parse_since("2 h ago", now), now - 7200 * kSec);
    EXPECT_EQ(parse_since("1 day ago", now), now - 86400 * kSec);
    EXPECT_EQ(parse_since("today", now), local(2026, 12, 2, 0, 0, 0));
    EXPECT_EQ(parse_since("yesterday", now), local(2026, 12, 1, 0, 0, 0));
    EXPECT_EQ(parse_since("2026-12-01", now), local(2026, 12, 1, 0, 0, 0));
    EXPECT_EQ(parse_since("2026-12-01 08:30", now), local(2026, 12, 1, 8, 30, 0));
    EXPECT_EQ(parse_since("2026-12-01 08:30:15", now), local(2026, 12, 1, 8, 30, 15));
}

TEST(Since, RefusesWhatItCannotParse)
{
    for (const auto* text : {"", "soon", "2026-13-01", "2026-02-30", "2026-12-01x", "-5 fortnights", "@12a", "5 min"}) {
        NR_EXPECT_REFUSED(since, ErrorKind::InvalidArgument, parse_since(text, 1000 * kSec));
    }
}

TEST(ARecord, MatchesWhenAllFieldsOfOneTermAgree)
{
    const Terms terms{{"_UID=0", "NATIVE_RUNTIME_OWNER=alice"}, {"_PID=1", "UNIT=u.service"}};
    EXPECT_TRUE(record_matches({{"_UID", "0"}, {"NATIVE_RUNTIME_OWNER", "alice"}, {"MESSAGE", "x"}}, terms));
    EXPECT_TRUE(record_matches({{"_PID", "1"}, {"UNIT", "u.service"}}, terms));
    EXPECT_FALSE(record_matches({{"_UID", "1002"}, {"NATIVE_RUNTIME_OWNER", "alice"}}, terms)) << "a forged record";
    EXPECT_FALSE(record_matches({{"UNIT", "u.service"}}, terms));
    EXPECT_FALSE(record_matches({}, {}));
}
