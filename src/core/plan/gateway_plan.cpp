// SPDX-License-Identifier: Apache-2.0
#include "core/plan/gateway_plan.h"

#include "core/base/error.h"

#include <algorithm>

namespace nr::core {

namespace {

constexpr std::size_t kTokenHexDigits = 64;
constexpr std::size_t kMaxReason = 512;

} // namespace

bool is_gateway_token(const std::string& token)
{
    return token.size() == kTokenHexDigits && std::all_of(token.begin(), token.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

std::vector<std::string> gateway_environment(const EgressPolicy& egress, std::uint16_t port, const std::string& token)
{
    const auto origin = "http://127.0.0.1:" + std::to_string(port);
    std::vector<std::string> env;
    for (const auto& route : egress.providers) {
        env.push_back(route.key_env + "=" + token);
        env.push_back(route.base_url_env + "=" + origin + "/" + route.host + route.base_path);
    }
    env.push_back("HTTPS_PROXY=" + origin);
    env.push_back("https_proxy=" + origin);
    env.push_back("NO_PROXY=127.0.0.1,localhost");
    env.push_back("no_proxy=127.0.0.1,localhost");
    return env;
}

GatewaySession gateway_session(const Config& config, const AdapterProfile& adapter, const std::string& unit,
                               const std::string& owner, const std::string& chat, const std::string& token)
{
    GatewaySession session;
    session.unit = unit;
    session.owner = owner;
    session.chat = chat;
    session.adapter = adapter.name;
    session.token = token;
    session.egress = adapter.egress;
    session.max_header_bytes = config.gateway.max_header_bytes;
    session.max_request_bytes = config.gateway.max_request_bytes;
    session.max_response_bytes = config.gateway.max_response_bytes;
    session.request_budget = owner_request_budget(config.gateway.request_budget, owner);
    session.budget_window_sec = config.gateway.request_budget.window_sec;
    session.max_connections = config.gateway.max_connections_per_session;
    session.max_tunnels = config.gateway.max_tunnels_per_session;
    session.max_buffered_bytes = config.gateway.max_buffered_bytes_per_session;
    session.header_timeout_sec = config.gateway.header_timeout_sec;
    session.idle_timeout_sec = config.gateway.idle_timeout_sec;
    return session;
}

void check_gateway_answer(std::string_view answer)
{
    if (answer == "ok\n") {
        return;
    }
    constexpr std::string_view kError = "error ";
    if (answer.starts_with(kError) && answer.ends_with('\n') && answer.size() > kError.size() + 1) {
        auto reason = answer.substr(kError.size(), answer.size() - kError.size() - 1);
        reason = reason.substr(0, kMaxReason);
        // The reason travels on to the worker and the journal as text.
        std::string printable;
        for (const char c : reason) {
            printable += (c >= ' ' && c < '\x7f') ? c : '?';
        }
        fail(ErrorKind::LaunchFailed, "the egress gateway refused the session: " + printable);
    }
    fail(ErrorKind::LaunchFailed, answer.empty() ? "the egress gateway closed the connection without an answer"
                                                 : "the egress gateway gave an answer that is neither ok nor error");
}

bool is_stale_registration(std::string_view answer)
{
    return answer == "error " + std::string(kUnitAlreadyRegistered) + "\n";
}

} // namespace nr::core
