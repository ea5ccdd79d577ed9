// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the egress gateway does with one request from a session, decided
// without a socket (docs/egress-gateway-design.md, issue 17). Requests come
// from model-controlled code inside the sandbox: everything here treats the
// method, target and header values as hostile, and refuses whatever is not
// exactly one of the two shapes a session may use:
//   - a provider request, "/<host><rest>" (or the same in absolute form for
//     the session's own listener), which the gateway forwards over TLS with
//     the real key in place of the session's token;
//   - "CONNECT host:port" for an allow-listed host that is not a provider,
//     which the gateway tunnels without looking inside.

#include "core/gateway/egress.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace nr::core {

struct RouteForward {
    const ProviderRoute* provider = nullptr; // points into the policy
    std::string host;                        // as on the allow-list, maybe "name:port"
    std::string target;                      // origin-form, never empty
};

struct RouteTunnel {
    std::string host; // DNS name without the port
    std::uint16_t port = 443;
};

struct RouteRefuse {
    std::string reason; // a short token for X-Native-Runtime-Refused
    std::string host;   // sanitised for a message; may be empty
    unsigned status = 403;
};

using Route = std::variant<RouteForward, RouteTunnel, RouteRefuse>;

// `listener_port` is the port of the session's own listener, the only
// authority an absolute-form provider request may name. A method a
// provider's API does not use is refused with 405 (`method`), and a path
// an upstream could resolve to another place than it reads (an empty
// segment, a dot segment, a backslash) with 400 (`bad-path`), before the
// key is anywhere near the request.
Route decide_route(const EgressPolicy& policy, std::string_view method, std::string_view target,
                   std::uint16_t listener_port);

// The one-line body of a 403 for a refused route.
std::string refusal_message(const RouteRefuse& refusal);

// True when `header_value` is exactly "<scheme> <token>" ("<token>" for an
// empty scheme). Compares in time independent of where the values differ.
bool token_matches(const ProviderRoute& provider, std::string_view header_value, std::string_view token);

// The header value that carries the real key upstream.
std::string provider_header_value(const ProviderRoute& provider, std::string_view key);

// Hop-by-hop header names (RFC 9110 7.6.1): the fixed ones and those the
// Connection header names. Lower case.
std::vector<std::string> hop_by_hop_headers(std::string_view connection_value);

// "api.openai.com" -> {api.openai.com, 443}; "localhost:8443" -> {localhost, 8443}.
struct HostPort {
    std::string name;
    std::uint16_t port = 443;
};
HostPort split_host_port(std::string_view host);

// Printable for a log line or a message: [a-z0-9.:-] kept, others '?',
// at most 255 characters.
std::string sanitize_host(std::string_view host);

// Timing-independent equality of two byte strings of any length.
bool constant_time_equal(std::string_view a, std::string_view b);

} // namespace nr::core
