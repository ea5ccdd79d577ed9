// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the gateway's control-message decoder (core/gateway/egress.h).
// Only root may write to the gateway's control socket, but the gateway
// decodes as if anyone could: a malformed message must be refused, never
// half-applied, and never crash the process that holds every provider key.
//
// Checked: decode_gateway_control refuses only with InvalidArgument; an
// accepted message encodes back to itself exactly; an accepted registration
// has a 64-digit token, limits above 0 (no more tunnels than connections,
// room for a header in the buffered bytes), and only providers whose host
// is on the allow-list.

#include "core/base/error.h"
#include "core/gateway/egress.h"
#include "fuzz_support.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

using namespace nr::core;
using nr::fuzz::require;

void check_accepted(std::string_view message, const GatewayControl& control)
{
    const auto& s = control.session;
    if (control.kind == GatewayControl::Kind::Revoke) {
        require(encode_gateway_revoke(s.unit) == message, "an accepted revoke encodes back to itself");
        return;
    }
    require(encode_gateway_register(s) == message, "an accepted registration encodes back to itself");
    require(s.token.size() == 64, "the token has 64 digits");
    require(s.max_header_bytes > 0 && s.max_request_bytes > 0 && s.max_response_bytes > 0, "limits above 0");
    require(s.max_connections > 0 && s.max_tunnels > 0 && s.max_tunnels <= s.max_connections &&
                s.max_buffered_bytes > s.max_header_bytes && s.header_timeout_sec > 0 && s.idle_timeout_sec > 0,
            "per-session limits above 0, tunnels within connections, a header within the buffered bytes");
    for (const auto& provider : s.egress.providers) {
        require(std::find(s.egress.allow_hosts.begin(), s.egress.allow_hosts.end(), provider.host) !=
                    s.egress.allow_hosts.end(),
                "a provider's host is on the allow-list");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view message(reinterpret_cast<const char*>(data), size);
    try {
        check_accepted(message, decode_gateway_control(message));
    } catch (const Error& e) {
        require(e.kind() == ErrorKind::InvalidArgument, "a refusal is InvalidArgument");
    }
    return 0;
}
