// What `status` shows of the gateway's traffic: sums of the gateway's own
// request records (core/gateway_usage.h).

#include "core/gateway_usage.h"
#include "core/journal_fields.h"

#include <gtest/gtest.h>

using namespace nr::core;

namespace {

constexpr std::uint64_t kSec = 1000000;
constexpr std::uint64_t kNow = 100000 * kSec;
const std::string kUnit = "native-runtime-alice-c1.service";

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

TEST(TheGatewayUsageQuery, TrustsOnlyTheGatewaysUnitAndReadsFromTheLongestWindowOrTheSessionsStart)
{
    const auto terms = gateway_usage_terms("alice");
    ASSERT_EQ(terms.size(), 1U);
    EXPECT_EQ(terms.front().front(), "_SYSTEMD_UNIT=native-runtime-gateway.service");
    EXPECT_EQ(terms.front().back(), "NATIVE_RUNTIME_OWNER=alice");
    EXPECT_EQ(gateway_usage_since(kNow - 10 * kSec, kNow), kNow - 86400 * kSec);
    EXPECT_EQ(gateway_usage_since(kNow - 90000 * kSec, kNow), kNow - 90000 * kSec);
    EXPECT_EQ(gateway_usage_since(std::nullopt, kNow), kNow - 86400 * kSec);
}
