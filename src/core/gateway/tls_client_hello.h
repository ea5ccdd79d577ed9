// SPDX-License-Identifier: Apache-2.0
#pragma once
// The first bytes a session sends on a CONNECT tunnel, judged before the
// egress gateway relays anything: the tunnel stays open only for a TLS
// ClientHello whose server name is the CONNECT host, so an allow-listed
// host cannot be used as a relay to another name on the same address, and
// nothing but TLS passes. The bytes come from model-controlled code: every
// length is checked against what is there and against the others, nothing
// is read past the end, nothing throws, and the gateway never has to hold
// more than kMaxClientHelloBytes.
//
// Strictness, beyond the TLS 1.2/1.3 encoding rules (RFC 8446 4.1.2,
// RFC 6066 3): the record that completes the ClientHello ends with it (a
// client sends nothing else in its first flight's handshake records), and a
// host name must be a DNS name (labels of 1 to 63 of [A-Za-z0-9-], no
// trailing dot).

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>

namespace nr::core {

// What the first bytes of a tunnel say.
struct ClientHelloNeedMore {
    std::size_t at_least = 0; // total bytes needed before a decision (> bytes.size())
};
struct ClientHelloRefuse {
    // not-tls, malformed-client-hello, no-sni, ech, bad-sni or too-large
    std::string reason;
};
struct ClientHelloSni {
    std::string host; // the server name, as sent (validated)
};
using ClientHelloResult = std::variant<ClientHelloNeedMore, ClientHelloRefuse, ClientHelloSni>;

// The most the gateway reads before deciding; a ClientHello that needs more is refused ("too-large").
inline constexpr std::size_t kMaxClientHelloBytes = 64U << 10U;

// Decides on the bytes received so far. A decision (refusal or name) on a
// prefix stays the same whatever follows it; bytes after the records that
// carry the ClientHello are ignored. NeedMore's at_least is the end of the
// record header or record being read: a ClientHello that can still turn out
// well-formed sends at least that much, so the gateway may wait for it
// without stalling a real client (a broken one may be refused sooner). It
// never exceeds kMaxClientHelloBytes.
ClientHelloResult inspect_client_hello(std::string_view bytes);

// True when `sni` names `connect_host` (a lower-case DNS name without port, as the route gives it):
// ASCII case-insensitive equality; no trailing-dot, wildcard or suffix games.
bool sni_matches(std::string_view sni, std::string_view connect_host);

} // namespace nr::core
