// SPDX-License-Identifier: Apache-2.0
#include "core/gateway/gateway_log.h"
#include "core/journal/journal_fields.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace nr::core;

namespace {

GatewaySession session()
{
    GatewaySession s;
    s.unit = "native-runtime-alice-chat1.service";
    s.owner = "alice";
    s.chat = "chat1";
    s.token = std::string(64, 'f');
    return s;
}

std::string field(const LogRecord& record, const std::string& name)
{
    const auto it =
        std::find_if(record.fields.begin(), record.fields.end(), [&](const auto& f) { return f.first == name; });
    return it == record.fields.end() ? std::string("<absent>") : it->second;
}

} // namespace

TEST(AGatewayRequestRecord, NamesTheSessionHostStatusAndBytes)
{
    GatewayExchange exchange{"api.openai.com", "POST", 200, "", 120, 4096, 1500};
    const auto record = gateway_request_record(session(), exchange);
    EXPECT_EQ(record.event, LogEvent::GatewayRequest);
    EXPECT_EQ(field(record, kFieldOwner), "alice");
    EXPECT_EQ(field(record, kFieldUnit), "native-runtime-alice-chat1.service");
    EXPECT_EQ(field(record, kFieldGatewayHost), "api.openai.com");
    EXPECT_EQ(field(record, kFieldGatewayStatus), "200");
    EXPECT_EQ(field(record, kFieldGatewayBytesIn), "120");
    EXPECT_EQ(field(record, kFieldGatewayBytesOut), "4096");
    EXPECT_EQ(field(record, kFieldGatewayRefused), "<absent>");
}

TEST(AGatewayRecord, NeverCarriesTheToken)
{
    const auto s = session();
    for (const auto& record : {gateway_request_record(s, GatewayExchange{"h", "GET", 403, "bad-token", 1, 2, 3}),
                               gateway_refusal_summary_record(s, RefusalSummary{2, {{"token", 2}}}),
                               gateway_revoke_record(s, GatewayCounters{3, 4, 5})}) {
        EXPECT_EQ(record.message.find(s.token), std::string::npos);
        for (const auto& [name, value] : record.fields) {
            EXPECT_EQ(value.find(s.token), std::string::npos) << name;
        }
    }
}

TEST(ARevokeRecord, CarriesTheSessionsTotals)
{
    const auto record = gateway_revoke_record(session(), GatewayCounters{3, 400, 5000});
    EXPECT_EQ(record.event, LogEvent::GatewaySessionEnded);
    EXPECT_EQ(field(record, kFieldGatewayRequests), "3");
    EXPECT_EQ(field(record, kFieldGatewayBytesOut), "5000");
}

TEST(AFaultRecord, NamesTheSessionWhereTheExceptionWasCaughtAndWhatItSaid)
{
    const auto record = gateway_fault_record(session(), "accept", "bad_alloc");
    EXPECT_EQ(record.event, LogEvent::GatewayFault);
    EXPECT_EQ(record.priority, Priority::Error);
    EXPECT_EQ(field(record, kFieldGatewayFault), "accept");
    EXPECT_EQ(field(record, kFieldGatewayFaultWhat), "bad_alloc");
    EXPECT_EQ(field(record, kFieldUnit), session().unit);
}

TEST(ABudgetedOwnersRequestRecord, CarriesTheBudgetItsWindowAndHowMuchIsUsed)
{
    auto s = session();
    s.request_budget = 500;
    s.budget_window_sec = 600;
    GatewayExchange exchange{"api.openai.com", "POST", 200, "", 1, 2, 3, 42};
    const auto record = gateway_request_record(s, exchange);
    EXPECT_EQ(field(record, kFieldGatewayBudget), "500");
    EXPECT_EQ(field(record, kFieldGatewayBudgetWindowSec), "600");
    EXPECT_EQ(field(record, kFieldGatewayBudgetUsed), "42");
}

TEST(AnUnbudgetedOwnersRequestRecord, HasNoBudgetFields)
{
    const auto record = gateway_request_record(session(), GatewayExchange{"h", "GET", 200, "", 1, 2, 3});
    EXPECT_EQ(field(record, kFieldGatewayBudget), "<absent>");
    EXPECT_EQ(field(record, kFieldGatewayBudgetUsed), "<absent>");
}

TEST(ARefusalSummaryRecord, NamesTheSessionTheTotalAndEachReasonsCount)
{
    const auto record =
        gateway_refusal_summary_record(session(), RefusalSummary{1234, {{"not-on-allow-list", 1200}, {"token", 34}}});
    EXPECT_EQ(record.event, LogEvent::GatewayRefusalsSummarized);
    EXPECT_EQ(record.priority, Priority::Notice);
    EXPECT_EQ(record.message, "gateway refused 1234 more requests of native-runtime-alice-chat1.service "
                              "(not-on-allow-list: 1200, token: 34)");
    EXPECT_EQ(field(record, kFieldOwner), "alice");
    EXPECT_EQ(field(record, kFieldChat), "chat1");
    EXPECT_EQ(field(record, kFieldUnit), "native-runtime-alice-chat1.service");
    EXPECT_EQ(field(record, kFieldGatewayRefusals), "1234");
    EXPECT_EQ(field(record, kFieldGatewayRefused), "not-on-allow-list=1200 token=34");
}

TEST(ARefusalSummaryRecordOfOneRefusal, SaysRequestInTheSingular)
{
    const auto record = gateway_refusal_summary_record(session(), RefusalSummary{1, {{"token", 1}}});
    EXPECT_EQ(record.message, "gateway refused 1 more request of native-runtime-alice-chat1.service (token: 1)");
}
