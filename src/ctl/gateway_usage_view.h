// SPDX-License-Identifier: Apache-2.0
#pragma once
// The egress gateway's part of `native-runtimectl status`: the session's
// and its owner's requests and bytes, and the owner's budget, summed from
// the gateway's records in the journal (core/gateway/gateway_usage.h).

#include "core/cli/json_output.h"
#include "core/cli/session_view.h"
#include "core/gateway/gateway_usage.h"

#include <optional>
#include <ostream>

namespace nr::ctl {

struct GatewayUsageView {
    // Why the journal could not be read; the rest of status still shows.
    std::string unreadable;
    bool any_record = false; // the owner has request records to show
    core::GatewayUsage usage;
};

GatewayUsageView read_gateway_usage(const core::SessionView& session, std::uint64_t now_usec);

// Nothing for an owner without gateway records; a line saying why for a
// journal this user may not read.
void print_gateway_usage(std::ostream& out, const GatewayUsageView& view, const std::string& owner);

// null when the journal could not be read, else the tallies (zeros included).
core::Json gateway_usage_json(const GatewayUsageView& view);

} // namespace nr::ctl
