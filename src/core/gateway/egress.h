// SPDX-License-Identifier: Apache-2.0
#pragma once
// The egress gateway's policy and its control messages (issue 17,
// docs/egress-gateway-design.md). A `network: gateway` session has its own
// network namespace whose only way out is a listener the launcher made in
// it and handed, through the helper, to native-runtime-gateway. The gateway
// forwards to the adapter's allow-listed HTTPS hosts only, and for provider
// hosts swaps the session's placeholder token for the real key, which only
// the gateway's own unit holds (systemd credentials).
//
// Everything here is pure: the helper encodes a registration from the
// parsed config, the gateway decodes it (strictly: it trusts only root on
// its control socket, but parses as if it did not).

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/network_policy.h"

namespace nr::core {

// A host whose requests carry the provider's key. The session reaches it as
// http://127.0.0.1:<port>/<host><base_path> (in `base_url_env`) with
// `key_env` set to the session's placeholder token; the gateway replaces
// `header`'s value ("<scheme> <token>", or "<token>" when scheme is empty)
// with the real key read from the gateway's credential `credential`.
struct ProviderRoute {
    std::string host;       // exact DNS name, lower case, optionally ":port"
    std::string credential; // systemd credential name, [A-Za-z0-9_.-]+
    std::string header = "Authorization";
    std::string scheme = "Bearer";
    std::string key_env;      // e.g. OPENAI_API_KEY
    std::string base_url_env; // e.g. OPENAI_BASE_URL
    std::string base_path;    // e.g. "/v1"; empty or starting with '/'

    bool operator==(const ProviderRoute&) const = default;
};

// An adapter's `egress:` section. Every provider host is on allow_hosts;
// an empty allow_hosts means offline through the gateway.
struct EgressPolicy {
    std::vector<std::string> allow_hosts;
    std::vector<ProviderRoute> providers;
    // Special-use destinations (core::denied_destinations()) this adapter's
    // hosts may resolve to, e.g. a model server on a private network; a name
    // that resolves into any other special-use range is refused.
    std::vector<IpPrefix> allow_addresses;

    bool operator==(const EgressPolicy&) const = default;
};

// `gateway.request_budget`: how many requests the gateway relays for one
// owner (all of the owner's sessions together) in any `window_sec`
// seconds; a request beyond it is answered 429 with Retry-After. Every
// owner has a budget unless the operator turns it off: one session must
// not be able to spend the shared provider key's quota for everyone.
inline constexpr std::uint64_t kDefaultRequestBudget = 1000;

struct RequestBudgetSettings {
    std::uint64_t window_sec = 3600;
    std::uint64_t per_owner = kDefaultRequestBudget; // 0 (`none`): no budget
    // Overrides of per_owner; 0 (`none`): no budget for that owner.
    std::map<std::string, std::uint64_t> owners;

    bool operator==(const RequestBudgetSettings&) const = default;
};

// The largest budget and window the config accepts: the gateway keeps one
// timestamp per relayed request in the window, so this bounds its memory
// per owner (800 KiB).
inline constexpr std::uint64_t kMaxRequestBudget = 100000;
inline constexpr std::uint64_t kMaxBudgetWindowSec = 86400;

// The owner's budget (0: none) under `settings`.
std::uint64_t owner_request_budget(const RequestBudgetSettings& settings, const std::string& owner);

// What one session may hold of the gateway, which every owner's sessions
// share: its defaults and the bounds the config and the decoder both keep.
inline constexpr std::uint64_t kDefaultMaxConnections = 128;
inline constexpr std::uint64_t kMaxConnectionsLimit = 4096;
inline constexpr std::uint64_t kDefaultMaxTunnels = 32; // at most max_connections: a tunnel is a connection
inline constexpr std::uint64_t kMaxTunnelsLimit = 1024;
inline constexpr std::uint64_t kDefaultMaxBufferedBytes = 8ULL << 20U;
inline constexpr std::uint64_t kMaxBufferedBytesLimit = 1ULL << 30U;
// Beyond one full header, room for a relay buffer: with less, a session
// could not get a single request through.
inline constexpr std::uint64_t kBufferedBytesBeyondHeader = 64ULL << 10U;
inline constexpr std::uint64_t kDefaultHeaderTimeoutSec = 20;
inline constexpr std::uint64_t kMaxHeaderTimeoutSec = 300;
inline constexpr std::uint64_t kDefaultIdleTimeoutSec = 120;
inline constexpr std::uint64_t kMaxIdleTimeoutSec = 86400;

// Whether `max_buffered_bytes` holds a full header of `max_header_bytes`
// and kBufferedBytesBeyondHeader more (without overflowing).
bool buffered_bytes_fit_header(std::uint64_t max_buffered_bytes, std::uint64_t max_header_bytes);

// The top-level `gateway:` section.
struct GatewaySettings {
    std::uint16_t port = 8080; // the listener's port on the session's 127.0.0.1
    std::uint64_t max_header_bytes = 16ULL << 10U;
    std::uint64_t max_request_bytes = 4ULL << 20U;
    std::uint64_t max_response_bytes = 64ULL << 20U;
    std::string control_socket = "/run/native-runtime-gateway/control";
    RequestBudgetSettings request_budget;
    std::uint64_t max_connections_per_session = kDefaultMaxConnections;
    std::uint64_t max_tunnels_per_session = kDefaultMaxTunnels;
    std::uint64_t max_buffered_bytes_per_session = kDefaultMaxBufferedBytes;
    std::uint64_t header_timeout_sec = kDefaultHeaderTimeoutSec;
    std::uint64_t idle_timeout_sec = kDefaultIdleTimeoutSec;

    bool operator==(const GatewaySettings&) const = default;
};

// One session as the helper registers it with the gateway. The listener
// travels beside the message (SCM_RIGHTS), exactly one descriptor.
struct GatewaySession {
    std::string unit; // the session's unit name: its identity everywhere
    std::string owner;
    std::string chat;
    std::string adapter;
    std::string token; // 64 lower-case hex digits
    EgressPolicy egress;
    std::uint64_t max_header_bytes = 0;
    std::uint64_t max_request_bytes = 0;
    std::uint64_t max_response_bytes = 0;
    // The owner's request budget (0: none) and its window, 1..86400 s.
    std::uint64_t request_budget = 0;
    std::uint64_t budget_window_sec = 3600;
    // The `gateway:` section's per-session limits and timeouts, in its bounds.
    std::uint64_t max_connections = kDefaultMaxConnections;
    std::uint64_t max_tunnels = kDefaultMaxTunnels;
    std::uint64_t max_buffered_bytes = kDefaultMaxBufferedBytes;
    std::uint64_t header_timeout_sec = kDefaultHeaderTimeoutSec;
    std::uint64_t idle_timeout_sec = kDefaultIdleTimeoutSec;

    bool operator==(const GatewaySession&) const = default;
};

// The gateway's reason for refusing a registration of a unit it already
// serves. systemd runs one unit of a name at a time, so for the helper
// that is a previous session's entry whose revoke was lost.
inline constexpr std::string_view kUnitAlreadyRegistered = "unit already registered";

// Control messages, one SOCK_SEQPACKET datagram each, from root only:
//   register: encode_gateway_register(session) with the listener attached;
//   revoke:   encode_gateway_revoke(unit); the token stops working and the
//             listener is closed, connections on it included.
// The gateway answers each with "ok\n" or "error <reason>\n".
std::string encode_gateway_register(const GatewaySession& session);
std::string encode_gateway_revoke(const std::string& unit);

struct GatewayControl {
    enum class Kind { Register, Revoke } kind = Kind::Register;
    GatewaySession session; // for Revoke only `unit` is set
};

// Throws Error(InvalidArgument) naming the field for anything
// encode_gateway_* would not have produced; decode(encode(x)) == x.
GatewayControl decode_gateway_control(std::string_view message);

// A registration as an earlier version kept it in systemd's descriptor
// store (before the per-session limits), in today's form with the default
// limits; any other message unchanged. So an upgrade's restart of the
// gateway keeps serving the sessions that were running.
std::string upgrade_stored_registration(std::string_view message);

// "api.openai.com", "localhost:8443": lower-case DNS name (no trailing dot,
// no wildcard, no IP literal), optional port 1..65535. Throws
// std::invalid_argument with a reason.
void check_egress_host(std::string_view host);

} // namespace nr::core
