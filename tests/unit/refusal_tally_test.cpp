// SPDX-License-Identifier: Apache-2.0
// Which of a session's gateway refusals get a record of their own, and the
// summary of the rest (core/gateway/refusal_tally.h).

#include "core/gateway/refusal_tally.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <limits>
#include <ostream>

using namespace nr::core;

namespace {

using nr::test::kSec;
constexpr std::uint64_t kStart = 500 * kSec;

// Admits `n` refusals for `reason` one microsecond apart from `from`;
// returns how many got a record.
std::uint64_t refuse(RefusalTally& tally, std::string_view reason, std::uint64_t n, std::uint64_t from)
{
    std::uint64_t admitted = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        admitted += tally.admit(reason, from + i) ? 1 : 0;
    }
    return admitted;
}

RefusalSummary summary(std::uint64_t total, std::map<std::string, std::uint64_t, std::less<>> by_reason)
{
    return RefusalSummary{total, std::move(by_reason)};
}

} // namespace

namespace nr::core {

void PrintTo(const RefusalSummary& summary, std::ostream* out)
{
    *out << summary.total << " {";
    for (const auto& [reason, count] : summary.by_reason) {
        *out << ' ' << reason << '=' << count;
    }
    *out << " }";
}

} // namespace nr::core

TEST(ASessionsFirstRefusals, EachGetARecordUpToTheBurst)
{
    RefusalTally tally;
    EXPECT_EQ(refuse(tally, "not-on-allow-list", kRefusalBurst, kStart), kRefusalBurst);
    EXPECT_FALSE(tally.due_at().has_value());
    EXPECT_FALSE(tally.flush().has_value());
}

TEST(ARefusalBeyondTheBurst, IsOnlyCounted)
{
    RefusalTally tally;
    refuse(tally, "not-on-allow-list", kRefusalBurst, kStart);
    EXPECT_FALSE(tally.admit("not-on-allow-list", kStart + kSec));
    EXPECT_EQ(tally.flush(), summary(1, {{"not-on-allow-list", 1}}));
}

TEST(ANewWindow, AdmitsRecordsAgain)
{
    RefusalTally tally;
    EXPECT_EQ(refuse(tally, "token", 100, kStart), kRefusalBurst);
    EXPECT_FALSE(tally.admit("token", kStart + kRefusalWindowUsec - 1));
    EXPECT_EQ(refuse(tally, "token", 100, kStart + kRefusalWindowUsec), kRefusalBurst);
}

TEST(ARefusalSummary, CountsEachReasonAndTheTotal)
{
    RefusalTally tally;
    refuse(tally, "token", kRefusalBurst, kStart);
    refuse(tally, "not-on-allow-list", 1200, kStart + kSec);
    refuse(tally, "token", 34, kStart + 2 * kSec);
    EXPECT_EQ(tally.flush(), summary(1234, {{"not-on-allow-list", 1200}, {"token", 34}}));
}

TEST(ARefusalSummary, IsDueOnlyOnceTheWindowItsCountStartedInHasEnded)
{
    RefusalTally tally;
    refuse(tally, "token", kRefusalBurst + 5, kStart);
    const auto window_end = kStart + kRefusalWindowUsec;
    EXPECT_EQ(tally.due_at(), window_end);
    EXPECT_FALSE(tally.due(kStart).has_value());
    EXPECT_FALSE(tally.due(window_end - 1).has_value());
    EXPECT_EQ(tally.due(window_end), summary(5, {{"token", 5}}));
}

TEST(ADueSummary, StartsTheCountsAgain)
{
    RefusalTally tally;
    refuse(tally, "token", kRefusalBurst + 5, kStart);
    ASSERT_TRUE(tally.due(kStart + kRefusalWindowUsec).has_value());
    EXPECT_FALSE(tally.due(kStart + kRefusalWindowUsec + 1).has_value());
    EXPECT_FALSE(tally.due_at().has_value());

    // The next window's refusals beyond the burst are due at its own end.
    const auto next = kStart + kRefusalWindowUsec + kSec;
    refuse(tally, "budget", kRefusalBurst + 2, next);
    EXPECT_EQ(tally.due_at(), next + kRefusalWindowUsec);
    EXPECT_EQ(tally.due(next + kRefusalWindowUsec), summary(2, {{"budget", 2}}));
}

TEST(NoRefusalBeyondTheBurst, MakesNoSummaryDue)
{
    RefusalTally tally;
    refuse(tally, "token", kRefusalBurst, kStart);
    EXPECT_FALSE(tally.due(kStart + 100 * kRefusalWindowUsec).has_value());
}

TEST(AFlush, ReturnsTheCountsBeforeTheWindowEndsAndOnlyOnce)
{
    RefusalTally tally;
    refuse(tally, "token", kRefusalBurst + 3, kStart);
    EXPECT_EQ(tally.flush(), summary(3, {{"token", 3}}));
    EXPECT_FALSE(tally.flush().has_value());
    EXPECT_FALSE(tally.due(kStart + kRefusalWindowUsec).has_value());
}

TEST(ManyDistinctReasons, AreFoldedIntoOtherBeyondTheCap)
{
    RefusalTally tally;
    refuse(tally, "token", kRefusalBurst, kStart);
    for (std::size_t i = 0; i < 2 * kMaxRefusalReasons; ++i) {
        EXPECT_FALSE(tally.admit("reason-" + std::to_string(i), kStart + kSec));
    }
    EXPECT_FALSE(tally.admit("reason-0", kStart + kSec)) << "a reason already counted keeps its own count";
    const auto counted = tally.flush();
    ASSERT_TRUE(counted.has_value());
    EXPECT_EQ(counted->total, 2 * kMaxRefusalReasons + 1);
    EXPECT_EQ(counted->by_reason.size(), kMaxRefusalReasons);
    EXPECT_EQ(counted->by_reason.at("reason-0"), 2U);
    EXPECT_EQ(counted->by_reason.at(std::string(kOtherRefusalReason)), kMaxRefusalReasons + 1);
}

TEST(ARefusalWithNoReason, IsCountedAsOther)
{
    RefusalTally tally;
    refuse(tally, "token", kRefusalBurst, kStart);
    EXPECT_FALSE(tally.admit("", kStart + kSec));
    EXPECT_EQ(tally.flush(), summary(1, {{std::string(kOtherRefusalReason), 1}}));
}

TEST(AClockThatStepsBack, NeitherOpensAWindowNorMakesASummaryDueEarly)
{
    RefusalTally tally;
    refuse(tally, "token", kRefusalBurst, kStart);
    EXPECT_FALSE(tally.admit("token", 0)) << "still the window that started at kStart";
    EXPECT_EQ(tally.due_at(), kStart + kRefusalWindowUsec);
    EXPECT_FALSE(tally.due(kSec).has_value());
    EXPECT_FALSE(tally.due(kStart + kRefusalWindowUsec - 1).has_value());
    EXPECT_TRUE(tally.due(kStart + kRefusalWindowUsec).has_value());
}

TEST(AClockAtItsLastValue, NeverMakesASummaryDueAtOnce)
{
    RefusalTally tally;
    const auto last = std::numeric_limits<std::uint64_t>::max() - kSec;
    refuse(tally, "token", kRefusalBurst + 1, last);
    EXPECT_EQ(tally.due_at(), std::numeric_limits<std::uint64_t>::max());
    EXPECT_FALSE(tally.due(last + kSec - 1).has_value());
    EXPECT_TRUE(tally.flush().has_value());
}
