// SPDX-License-Identifier: Apache-2.0
#pragma once
// The egress gateway's journal records (core/journal/log_event.h): one per request,
// a summary of the refusals that got no record of their own
// (core/gateway/refusal_tally.h), and a summary when a session is revoked. The
// session is known from the listener, so every record names it as the
// helper's records do.

#include "core/gateway/egress.h"
#include "core/gateway/refusal_tally.h"
#include "core/journal/log_event.h"

#include <cstdint>
#include <string>

namespace nr::core {

struct GatewayCounters {
    std::uint64_t requests = 0;
    std::uint64_t bytes_in = 0;  // from the session
    std::uint64_t bytes_out = 0; // to the session
};

struct GatewayExchange {
    std::string host; // sanitised
    std::string method;
    unsigned status = 0;
    std::string refused; // the refusal reason, empty when relayed
    std::uint64_t bytes_in = 0;
    std::uint64_t bytes_out = 0;
    std::uint64_t duration_usec = 0;
    // The owner's requests in the budget's window (session.request_budget > 0).
    std::uint64_t budget_used = 0;
};

LogRecord gateway_request_record(const GatewaySession& session, const GatewayExchange& exchange);

// `refusals.total` more refusals of the session, with their reasons.
LogRecord gateway_refusal_summary_record(const GatewaySession& session, const RefusalSummary& refusals);

LogRecord gateway_revoke_record(const GatewaySession& session, const GatewayCounters& totals);

// An exception caught where it would otherwise have ended a detached
// coroutine unseen: `where` is "accept" or "connection".
LogRecord gateway_fault_record(const GatewaySession& session, const std::string& where, const std::string& what);

} // namespace nr::core
