// SPDX-License-Identifier: Apache-2.0
#include "core/gateway/gateway_log.h"

#include "core/journal/journal_fields.h"

namespace nr::core {

namespace {

SessionRef ref_of(const GatewaySession& session)
{
    SessionRef ref;
    ref.owner = session.owner;
    ref.chat = session.chat;
    ref.unit = session.unit;
    return ref;
}

// "not-on-allow-list=1200 token=34" (separators ", " and ": " for MESSAGE).
std::string reasons_text(const RefusalSummary& refusals, std::string_view between, std::string_view before_count)
{
    std::string out;
    for (const auto& [reason, count] : refusals.by_reason) {
        out.append(out.empty() ? "" : between).append(reason).append(before_count).append(std::to_string(count));
    }
    return out;
}

} // namespace

LogRecord gateway_request_record(const GatewaySession& session, const GatewayExchange& exchange)
{
    auto record = log_record(LogEvent::GatewayRequest, "gateway " + exchange.method + " " + exchange.host + " -> " +
                                                           std::to_string(exchange.status));
    if (!exchange.refused.empty()) {
        record.priority = Priority::Notice;
        record.message += " (refused: " + exchange.refused + ")";
        record.fields.emplace_back(kFieldGatewayRefused, exchange.refused);
    }
    add_session(record, ref_of(session));
    record.fields.emplace_back(kFieldGatewayHost, exchange.host);
    record.fields.emplace_back(kFieldGatewayMethod, exchange.method);
    record.fields.emplace_back(kFieldGatewayStatus, std::to_string(exchange.status));
    record.fields.emplace_back(kFieldGatewayBytesIn, std::to_string(exchange.bytes_in));
    record.fields.emplace_back(kFieldGatewayBytesOut, std::to_string(exchange.bytes_out));
    record.fields.emplace_back(kFieldGatewayDurationUsec, std::to_string(exchange.duration_usec));
    if (session.request_budget > 0) {
        record.fields.emplace_back(kFieldGatewayBudget, std::to_string(session.request_budget));
        record.fields.emplace_back(kFieldGatewayBudgetWindowSec, std::to_string(session.budget_window_sec));
        record.fields.emplace_back(kFieldGatewayBudgetUsed, std::to_string(exchange.budget_used));
    }
    return record;
}

LogRecord gateway_refusal_summary_record(const GatewaySession& session, const RefusalSummary& refusals)
{
    const auto noun = refusals.total == 1 ? " more request of " : " more requests of ";
    const auto message = "gateway refused " + std::to_string(refusals.total) + noun + session.unit + " (" +
                         reasons_text(refusals, ", ", ": ") + ")";
    auto record = log_record(LogEvent::GatewayRefusalsSummarized, message);
    add_session(record, ref_of(session));
    record.fields.emplace_back(kFieldGatewayRefusals, std::to_string(refusals.total));
    record.fields.emplace_back(kFieldGatewayRefused, reasons_text(refusals, " ", "="));
    return record;
}

LogRecord gateway_revoke_record(const GatewaySession& session, const GatewayCounters& totals)
{
    auto record = log_record(LogEvent::GatewaySessionEnded,
                             "gateway revoked " + session.unit + ": " + std::to_string(totals.requests) + " requests");
    add_session(record, ref_of(session));
    record.fields.emplace_back(kFieldGatewayRequests, std::to_string(totals.requests));
    record.fields.emplace_back(kFieldGatewayBytesIn, std::to_string(totals.bytes_in));
    record.fields.emplace_back(kFieldGatewayBytesOut, std::to_string(totals.bytes_out));
    return record;
}

LogRecord gateway_fault_record(const GatewaySession& session, const std::string& where, const std::string& what)
{
    auto record = log_record(LogEvent::GatewayFault, "gateway fault in " + where + " of " + session.unit + ": " + what);
    add_session(record, ref_of(session));
    record.fields.emplace_back(kFieldGatewayFault, where);
    record.fields.emplace_back(kFieldGatewayFaultWhat, what);
    return record;
}

} // namespace nr::core
