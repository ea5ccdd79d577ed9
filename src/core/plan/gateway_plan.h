// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the plan adds for a `network: gateway` session (core/gateway/egress.h): the
// variables that point its clients at the gateway's listener in the
// session's own network namespace, and the registration the helper sends
// the gateway. Pure: the helper makes the placeholder token and passes it in.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/config/config.h"
#include "core/gateway/egress.h"

namespace nr::core {

// True for 64 lower-case hex digits (256 bits from sys::random_token).
bool is_gateway_token(const std::string& token);

// NAME=VALUE entries: per provider key_env=<token> and
// base_url_env=http://127.0.0.1:<port>/<host><base_path>; HTTPS_PROXY and
// https_proxy=http://127.0.0.1:<port> for every other allowed host (a
// CONNECT the gateway tunnels); NO_PROXY and no_proxy=127.0.0.1,localhost
// so the base URLs are not sent through the proxy as well.
std::vector<std::string> gateway_environment(const EgressPolicy& egress, std::uint16_t port, const std::string& token);

// The registration of one session: its identity, the token, the adapter's
// egress policy, the owner's request budget and the configured per-session
// limits.
GatewaySession gateway_session(const Config& config, const AdapterProfile& adapter, const std::string& unit,
                               const std::string& owner, const std::string& chat, const std::string& token);

// The gateway's answer to a control message: "ok\n", or "error <reason>\n"
// (then Error(LaunchFailed) with the reason). Anything else, including an
// empty answer from a gateway that closed the connection, is refused the
// same way: only an explicit "ok" registers a session.
void check_gateway_answer(std::string_view answer);

// Whether the gateway refused a registration only because it still serves
// a unit of that name (kUnitAlreadyRegistered).
bool is_stale_registration(std::string_view answer);

} // namespace nr::core
