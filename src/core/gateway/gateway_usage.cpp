// SPDX-License-Identifier: Apache-2.0
#include "core/gateway/gateway_usage.h"

#include "core/base/ids.h"
#include "core/base/unit_name.h"
#include "core/gateway/egress.h"
#include "core/journal/journal_fields.h"
#include "core/journal/log_event.h"

#include <algorithm>
#include <charconv>

namespace nr::core {

namespace {

constexpr std::uint64_t kUsecPerSec = 1000000;

std::string_view value_of(const GatewayRecordFields& record, const char* name)
{
    const auto it = record.fields.find(name);
    return it == record.fields.end() ? std::string_view() : std::string_view(it->second);
}

std::optional<std::uint64_t> number_of(const GatewayRecordFields& record, const char* name)
{
    const auto text = value_of(record, name);
    std::uint64_t value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end) {
        return std::nullopt;
    }
    return value;
}

bool is_refusal_summary(const GatewayRecordFields& record)
{
    return value_of(record, "MESSAGE_ID") == message_id(LogEvent::GatewayRefusalsSummarized);
}

void add(GatewayTally& tally, const GatewayRecordFields& record)
{
    if (is_refusal_summary(record)) {
        // Refusals that got no record of their own (core/gateway/refusal_tally.h).
        const auto refusals = number_of(record, kFieldGatewayRefusals).value_or(0);
        tally.requests += refusals;
        tally.refused += refusals;
        return;
    }
    ++tally.requests;
    if (!value_of(record, kFieldGatewayRefused).empty()) {
        ++tally.refused;
    }
    tally.bytes_in += number_of(record, kFieldGatewayBytesIn).value_or(0);
    tally.bytes_out += number_of(record, kFieldGatewayBytesOut).value_or(0);
}

std::optional<GatewayBudgetState> budget_of(const GatewayRecordFields& record)
{
    const auto budget = number_of(record, kFieldGatewayBudget);
    const auto window = number_of(record, kFieldGatewayBudgetWindowSec);
    const auto used = number_of(record, kFieldGatewayBudgetUsed);
    if (!budget || !window || !used || *window == 0) {
        return std::nullopt;
    }
    return GatewayBudgetState{*budget, *window, *used, record.realtime_usec};
}

} // namespace

std::vector<std::vector<std::string>> gateway_usage_terms(const std::string& owner)
{
    validate_id(IdKind::Owner, owner);
    std::vector<std::vector<std::string>> terms;
    for (const auto event : {LogEvent::GatewayRequest, LogEvent::GatewayRefusalsSummarized}) {
        terms.push_back({"_SYSTEMD_UNIT=" + std::string(kGatewayUnit),
                         field_assignment("MESSAGE_ID", message_id(event)), field_assignment(kFieldOwner, owner)});
    }
    return terms;
}

std::uint64_t gateway_usage_since(std::optional<std::uint64_t> session_since_usec, std::uint64_t now_usec)
{
    const auto longest = kMaxBudgetWindowSec * kUsecPerSec;
    const auto window_start = now_usec > longest ? now_usec - longest : 0;
    return session_since_usec ? std::min(*session_since_usec, window_start) : window_start;
}

GatewayUsage tally_gateway_usage(const std::vector<GatewayRecordFields>& records, const std::string& unit,
                                 std::optional<std::uint64_t> session_since_usec, std::uint64_t now_usec)
{
    GatewayUsage usage;
    usage.owner_window_sec = kOwnerTallyWindowSec;
    for (auto it = records.rbegin(); it != records.rend(); ++it) {
        if (auto budget = budget_of(*it)) {
            usage.budget = budget;
            usage.owner_window_sec = budget->window_sec;
            break;
        }
    }
    const auto window_usec = usage.owner_window_sec * kUsecPerSec;
    const auto owner_since = now_usec > window_usec ? now_usec - window_usec : 0;
    for (const auto& record : records) {
        if (value_of(record, kFieldUnit) == unit && session_since_usec && record.realtime_usec >= *session_since_usec) {
            add(usage.session, record);
        }
        if (record.realtime_usec >= owner_since) {
            add(usage.owner, record);
        }
    }
    return usage;
}

} // namespace nr::core
