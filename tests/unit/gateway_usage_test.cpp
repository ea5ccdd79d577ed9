// SPDX-License-Identifier: Apache-2.0
// What `status` shows of the gateway's traffic: sums of the gateway's own
// request records (core/gateway/gateway_usage.h).

#include "core/gateway/gateway_log.h"
#include "core/gateway/gateway_usage.h"
#include "core/journal/journal_fields.h"
#include "core/journal/log_event.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace nr::core;

namespace {

using nr::test::kSec;
constexpr std::uint64_t kNow = 100000 * kSec;
const std::string kUnit = "native-runtime-alice-c1.service";

// Whether a record's fields satisfy one of `terms` as sd_journal's matches
// would: every FIELD=value of one alternative present.
bool record_matches(const std::map<std::string, std::string>& fields,
                    const std::vector<std::vector<std::string>>& terms)
{
    return std::any_of(terms.begin(), terms.end(), [&fields](const std::vector<std::string>& term) {
        return std::all_of(term.begin(), term.end(), [&fields](const std::string& match) {
            const auto eq = match.find('=');
            const auto it = fields.find(match.substr(0, eq));
            return eq != std::string::npos && it != fields.end() && it->second == match.substr(eq + 1);
        });
    });
}

GatewayRecordFields request(std::uint64_t at, const std::string& unit, std::uint64_t in, std::uint64_t out,
                            const std::string& refused = "")
{
    GatewayRecordFields record{
        at,
        {{kFieldUnit, unit}, {kFieldGatewayBytesIn, std::to_string(in)}, {kFieldGatewayBytesOut, std::to_string(out)}}};
    if (!refused.empty()) {
        record.fields[kFieldGatewayRefused] = refused;
    }
    return record;
}

GatewayRecordFields budgeted(GatewayRecordFields record, std::uint64_t budget, std::uint64_t window, std::uint64_t used)
{
    record.fields[kFieldGatewayBudget] = std::to_string(budget);
    record.fields[kFieldGatewayBudgetWindowSec] = std::to_string(window);
    record.fields[kFieldGatewayBudgetUsed] = std::to_string(used);
    return record;
}

// A summary of `refusals` refusals that got no record of their own, as
// the gateway writes it (core/gateway/gateway_log.h).
GatewayRecordFields refusal_summary(std::uint64_t at, const std::string& unit, const std::string& refusals)
{
    return GatewayRecordFields{at,
                               {{"MESSAGE_ID", std::string(message_id(LogEvent::GatewayRefusalsSummarized))},
                                {kFieldUnit, unit},
                                {kFieldGatewayRefusals, refusals},
                                {kFieldGatewayRefused, "not-on-allow-list=" + refusals}}};
}

// `record` as the journal hands the gateway's records back: every field,
// MESSAGE_ID included, and the unit journald adds.
GatewayRecordFields as_read_back(std::uint64_t at, const LogRecord& record)
{
    GatewayRecordFields out{at, {{"_SYSTEMD_UNIT", "native-runtime-gateway.service"}}};
    for (const auto& field : journal_fields(record, "native-runtime-gateway")) {
        const auto eq = field.find('=');
        out.fields.emplace(field.substr(0, eq), field.substr(eq + 1));
    }
    return out;
}

} // namespace

TEST(ASessionsGatewayTally, CountsOnlyItsUnitsRecordsSinceItStarted)
{
    const std::vector<GatewayRecordFields> records{
        request(kNow - 50 * kSec, kUnit, 10, 100),                         // an earlier session of the same chat
        request(kNow - 20 * kSec, kUnit, 1, 2),                            // this one
        request(kNow - 10 * kSec, kUnit, 3, 4, "budget"),                  // this one, refused
        request(kNow - 5 * kSec, "native-runtime-alice-c2.service", 7, 8), // another chat
    };
    const auto usage = tally_gateway_usage(records, kUnit, kNow - 30 * kSec, kNow);
    EXPECT_EQ(usage.session, (GatewayTally{2, 1, 4, 6}));
}

TEST(AnOwnersGatewayTally, CoversEverySessionInTheLastHourWithoutABudget)
{
    const std::vector<GatewayRecordFields> records{
        request(kNow - 4000 * kSec, kUnit, 1000, 1000),
        request(kNow - 3000 * kSec, kUnit, 1, 2),
        request(kNow - 5 * kSec, "native-runtime-alice-c2.service", 7, 8),
    };
    const auto usage = tally_gateway_usage(records, kUnit, kNow - 10 * kSec, kNow);
    EXPECT_EQ(usage.owner_window_sec, 3600U);
    EXPECT_EQ(usage.owner, (GatewayTally{2, 0, 8, 10}));
    EXPECT_FALSE(usage.budget.has_value());
}

TEST(AnOwnersGatewayTally, UsesTheWindowAndStateOfTheNewestBudgetedRecord)
{
    const std::vector<GatewayRecordFields> records{
        budgeted(request(kNow - 90 * kSec, kUnit, 1, 1), 10, 3600, 4),
        budgeted(request(kNow - 30 * kSec, kUnit, 1, 1), 5, 60, 1),
        request(kNow - 20 * kSec, kUnit, 1, 1),
    };
    const auto usage = tally_gateway_usage(records, kUnit, kNow - 100 * kSec, kNow);
    ASSERT_TRUE(usage.budget.has_value());
    EXPECT_EQ(*usage.budget, (GatewayBudgetState{5, 60, 1, kNow - 30 * kSec}));
    EXPECT_EQ(usage.owner_window_sec, 60U);
    EXPECT_EQ(usage.owner.requests, 2U);
    EXPECT_EQ(usage.session.requests, 3U);
}

TEST(AGatewayRecordWithAMalformedNumber, CountsAsARequestOfNoBytes)
{
    auto record = request(kNow - kSec, kUnit, 0, 0);
    record.fields[kFieldGatewayBytesIn] = "12x";
    record.fields.erase(kFieldGatewayBytesOut);
    const auto usage = tally_gateway_usage({record}, kUnit, kNow - 10 * kSec, kNow);
    EXPECT_EQ(usage.session, (GatewayTally{1, 0, 0, 0}));
}

TEST(AStoppedSession, HasNoSessionTallyButItsOwnerStillHasOne)
{
    const auto usage = tally_gateway_usage({request(kNow - kSec, kUnit, 1, 1)}, kUnit, std::nullopt, kNow);
    EXPECT_EQ(usage.session.requests, 0U);
    EXPECT_EQ(usage.owner.requests, 1U);
}

TEST(ARefusalSummary, AddsItsCountToTheRequestsAndRefusedOfTheSessionAndTheOwner)
{
    const std::vector<GatewayRecordFields> records{
        request(kNow - 20 * kSec, kUnit, 1, 2),
        refusal_summary(kNow - 10 * kSec, kUnit, "1234"),
    };
    const auto usage = tally_gateway_usage(records, kUnit, kNow - 30 * kSec, kNow);
    EXPECT_EQ(usage.session, (GatewayTally{1235, 1234, 1, 2}));
    EXPECT_EQ(usage.owner, (GatewayTally{1235, 1234, 1, 2}));
}

TEST(ARefusalSummaryWithAMalformedOrMissingCount, AddsNothing)
{
    auto missing = refusal_summary(kNow - 3 * kSec, kUnit, "1");
    missing.fields.erase(kFieldGatewayRefusals);
    const std::vector<GatewayRecordFields> records{
        refusal_summary(kNow - 5 * kSec, kUnit, "12x"),
        refusal_summary(kNow - 4 * kSec, kUnit, "-3"),
        missing,
    };
    const auto usage = tally_gateway_usage(records, kUnit, kNow - 10 * kSec, kNow);
    EXPECT_EQ(usage.session, (GatewayTally{}));
    EXPECT_EQ(usage.owner, (GatewayTally{}));
}

TEST(ASessionFloodedWithRefusals, StillHasItsAcceptedRequestsCountedExactly)
{
    // What the gateway writes for 200 000 refusals and 3 accepted requests
    // (issue 24): 20 refusal records in the first window, the rest summed
    // up in summaries.
    std::vector<GatewayRecordFields> records;
    records.reserve(33);
    for (int i = 0; i < 20; ++i) {
        records.push_back(request(kNow - 60 * kSec, kUnit, 40, 120, "not-on-allow-list"));
    }
    for (int i = 0; i < 9; ++i) {
        records.push_back(refusal_summary(kNow - (50 - i) * kSec, kUnit, "20000"));
    }
    records.push_back(refusal_summary(kNow - 40 * kSec, kUnit, "19980"));
    for (int i = 0; i < 3; ++i) {
        records.push_back(request(kNow - (30 - i) * kSec, kUnit, 100, 1000));
    }
    const auto usage = tally_gateway_usage(records, kUnit, kNow - 100 * kSec, kNow);
    EXPECT_EQ(usage.session.requests, 200003U);
    EXPECT_EQ(usage.session.refused, 200000U);
    EXPECT_EQ(usage.session.requests - usage.session.refused, 3U);
    EXPECT_EQ(usage.session.bytes_in, 20U * 40 + 300);
    EXPECT_EQ(usage.owner, usage.session);
}

TEST(TheGatewaysOwnRecords, AreCountedAsTheyAreWritten)
{
    GatewaySession session;
    session.unit = kUnit;
    session.owner = "alice";
    session.chat = "c1";
    const std::vector<GatewayRecordFields> records{
        as_read_back(kNow - 3 * kSec, gateway_request_record(session, GatewayExchange{"h", "GET", 200, "", 5, 6, 7})),
        as_read_back(kNow - 2 * kSec, gateway_refusal_summary_record(session, RefusalSummary{30, {{"token", 30}}})),
    };
    const auto usage = tally_gateway_usage(records, kUnit, kNow - 10 * kSec, kNow);
    EXPECT_EQ(usage.session, (GatewayTally{31, 30, 5, 6}));
    for (const auto& record : records) {
        EXPECT_TRUE(record_matches(record.fields, gateway_usage_terms("alice"))) << record.fields.at("MESSAGE");
    }
}

TEST(TheGatewayUsageQuery, TrustsOnlyTheGatewaysUnitAndReadsFromTheLongestWindowOrTheSessionsStart)
{
    const auto terms = gateway_usage_terms("alice");
    ASSERT_EQ(terms.size(), 2U);
    for (const auto& term : terms) {
        EXPECT_EQ(term.front(), "_SYSTEMD_UNIT=native-runtime-gateway.service");
        EXPECT_EQ(term.back(), "NATIVE_RUNTIME_OWNER=alice");
    }
    EXPECT_EQ(terms.front().at(1), "MESSAGE_ID=" + std::string(message_id(LogEvent::GatewayRequest)));
    EXPECT_EQ(terms.back().at(1), "MESSAGE_ID=" + std::string(message_id(LogEvent::GatewayRefusalsSummarized)));
    EXPECT_EQ(gateway_usage_since(kNow - 10 * kSec, kNow), kNow - 86400 * kSec);
    EXPECT_EQ(gateway_usage_since(kNow - 90000 * kSec, kNow), kNow - 90000 * kSec);
    EXPECT_EQ(gateway_usage_since(std::nullopt, kNow), kNow - 86400 * kSec);
}
