// SPDX-License-Identifier: Apache-2.0
#include "core/config/config_sections.h"

#include <charconv>

// `gateway`: the egress gateway's port, sizes, timeouts, per-session caps
// and request budget.
namespace nr::core::config_sections {

namespace {

// A budget is a request count or `none` (also 0): no budget at all. In
// `owners`, `none` exempts that owner from `per_owner`.
std::uint64_t read_budget_count(const ConfigReader& r, const Node& node, const Key& key)
{
    const auto text = r.scalar(node, key);
    if (text == "none") {
        return 0;
    }
    std::uint64_t value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end || value > kMaxRequestBudget) {
        r.error_at(node, key,
                   "expected a number of requests up to " + std::to_string(kMaxRequestBudget) +
                       ", or none for no budget");
    }
    return value;
}

// `owners` maps owner ids, which the operator chooses, to budgets.
RequestBudgetSettings read_request_budget(const ConfigReader& r, const Node& node, const Key& key)
{
    RequestBudgetSettings budget;
    r.for_each_key(
        node, key,
        {
            {"window_sec",
             [&](const Node& n, const Key& k) {
                 budget.window_sec = r.unsigned_number(n, k, kMaxBudgetWindowSec);
                 if (budget.window_sec == 0) {
                     r.error_at(n, k, "must be 1 to " + std::to_string(kMaxBudgetWindowSec));
                 }
             }},
            {"per_owner", [&](const Node& n, const Key& k) { budget.per_owner = read_budget_count(r, n, k); }},
            {"owners",
             [&](const Node& n, const Key& k) {
                 read_id_map(r, n, k, IdKind::Owner, "a mapping of owner ids to request counts", budget.owners,
                             [&r](const Node& value, const Key& where, const std::string&) {
                                 return read_budget_count(r, value, where);
                             });
             }},
        });
    return budget;
}

// The limits that depend on each other are checked once all are read, as
// they may come in any order; the error names the key the operator set
// (a default cannot be the mistake when the other key is also default).
void check_gateway_limits(const ConfigReader& r, const Node& node, const Key& key, const GatewaySettings& gateway)
{
    const auto set_one = [&node](const char* first, const char* otherwise) { return node[first] ? first : otherwise; };
    if (gateway.max_tunnels_per_session > gateway.max_connections_per_session) {
        const auto* name = set_one("max_tunnels_per_session", "max_connections_per_session");
        r.error_at(node[name], key + "." + name,
                   "max_tunnels_per_session (" + std::to_string(gateway.max_tunnels_per_session) +
                       ") must be at most max_connections_per_session (" +
                       std::to_string(gateway.max_connections_per_session) + "): a tunnel is a connection");
    }
    if (!buffered_bytes_fit_header(gateway.max_buffered_bytes_per_session, gateway.max_header_bytes)) {
        const auto* name = set_one("max_buffered_bytes_per_session", "max_header_bytes");
        r.error_at(node[name], key + "." + name,
                   "max_buffered_bytes_per_session (" + std::to_string(gateway.max_buffered_bytes_per_session) +
                       ") must be at least max_header_bytes (" + std::to_string(gateway.max_header_bytes) + ") + " +
                       std::to_string(kBufferedBytesBeyondHeader >> 10U) + "K, or no request fits");
    }
}

} // namespace

GatewaySettings read_gateway(const ConfigReader& r, const Node& node, const Key& key)
{
    GatewaySettings gateway;
    const auto positive_size = [&](std::uint64_t& field) {
        return [&r, &field](const Node& n, const Key& k) {
            field = r.byte_size(n, k);
            if (field == 0) {
                r.error_at(n, k, "must be greater than zero");
            }
        };
    };
    const auto from_one_to = [&](std::uint64_t& field, std::uint64_t max) {
        return [&r, &field, max](const Node& n, const Key& k) {
            field = r.unsigned_number(n, k, max);
            if (field == 0) {
                r.error_at(n, k, "must be 1 to " + std::to_string(max));
            }
        };
    };
    r.for_each_key(
        node, key,
        {
            {"port",
             [&](const Node& n, const Key& k) {
                 gateway.port = static_cast<std::uint16_t>(r.unsigned_number(n, k, 65535));
                 if (gateway.port == 0) {
                     r.error_at(n, k, "must be a port from 1 to 65535");
                 }
             }},
            {"max_header_bytes", positive_size(gateway.max_header_bytes)},
            {"max_request_bytes", positive_size(gateway.max_request_bytes)},
            {"max_response_bytes", positive_size(gateway.max_response_bytes)},
            {"control_socket", r.assign(gateway.control_socket, &ConfigReader::absolute_path)},
            {"request_budget",
             [&](const Node& n, const Key& k) { gateway.request_budget = read_request_budget(r, n, k); }},
            {"max_connections_per_session", from_one_to(gateway.max_connections_per_session, kMaxConnectionsLimit)},
            {"max_tunnels_per_session", from_one_to(gateway.max_tunnels_per_session, kMaxTunnelsLimit)},
            {"max_buffered_bytes_per_session",
             [&](const Node& n, const Key& k) {
                 gateway.max_buffered_bytes_per_session = r.byte_size(n, k);
                 if (gateway.max_buffered_bytes_per_session > kMaxBufferedBytesLimit) {
                     r.error_at(n, k, "must be at most 1G");
                 }
             }},
            {"header_timeout_sec", from_one_to(gateway.header_timeout_sec, kMaxHeaderTimeoutSec)},
            {"idle_timeout_sec", from_one_to(gateway.idle_timeout_sec, kMaxIdleTimeoutSec)},
        });
    check_gateway_limits(r, node, key, gateway);
    return gateway;
}

} // namespace nr::core::config_sections
