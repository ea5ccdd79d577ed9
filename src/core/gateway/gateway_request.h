// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the egress gateway accepts of a request's header, and the header it
// sends upstream instead (issue 24). The session's bytes never reach the
// provider as they came: the gateway parses them, refuses every framing an
// upstream could read differently from the gateway (a desync on the
// connection that carries the real key), and writes a new header of its
// own from what it parsed, with exactly one framing.

#include "core/gateway/gateway_route.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace nr::core {

// One request's header as the HTTP parser read it.
struct RequestHead {
    std::string_view method;
    std::string_view target;
    unsigned version = 11; // 10 or 11
    std::vector<std::pair<std::string_view, std::string_view>> fields;
};

enum class BodyFraming { None, Length, Chunked };

struct RequestFraming {
    BodyFraming body = BodyFraming::None;
    std::uint64_t content_length = 0; // for BodyFraming::Length
    bool expect_continue = false;     // the client waits for "100 Continue"
    bool keep_alive = true;           // the client's wish for its connection
};

// A refusal the gateway answers itself; `reason` goes to
// X-Native-Runtime-Refused and the journal.
struct RequestRefusal {
    unsigned status = 400;
    std::string reason;
    std::string message;
};

using RequestCheck = std::variant<RequestFraming, RequestRefusal>;

// True when a header line is continued on the next one (obs-fold, RFC 9112
// 5.2): `raw_head` is the header as received, up to and including its
// blank line. Parsers disagree on obs-fold, so the gateway refuses it.
bool has_obs_fold(std::string_view raw_head);

// The framing of the body that follows `head`, or why the gateway refuses
// the request: more than one Content-Length, a Transfer-Encoding other than
// exactly one "chunked", both Transfer-Encoding and Content-Length, chunked
// in HTTP/1.0, an Expect other than 100-continue, a method, target, field
// name or value no HTTP/1.1 sender may produce.
RequestCheck check_request_head(const RequestHead& head);

// The header the gateway writes upstream, in two parts around the real key
// (which the gateway writes from its locked memory, never copying it into
// a string): `before_key` ends with "<provider header>: <scheme> " and
// `after_key` starts with the CRLF that ends that line.
struct UpstreamHead {
    std::string before_key;
    std::string after_key;
};

// From the session's fields: everything except hop-by-hop fields, Host,
// the framing fields, Expect, Max-Forwards and the provider's own header;
// then Host for `forward.host`, the key's field and exactly one framing
// field (Content-Length, or Transfer-Encoding: chunked).
UpstreamHead upstream_request_head(const RequestHead& head, const RouteForward& forward, const RequestFraming& framing);

// The most plaintext one TLS record carries (RFC 8446 5.1).
inline constexpr std::size_t kTlsRecordBytes = 16U << 10U;

// What the first write of a request upstream carries. Every write is a
// TLS record, a send and a wake-up of the provider's reader: in one record
// the head, its key and a small body cost one of each instead of four.
struct FirstRecord {
    bool whole_head = false;    // the head with its key; otherwise they go in three writes
    std::size_t body_bytes = 0; // of the body, right after the head
};

// The head (`head_bytes`, key included) goes whole when it fits one record;
// after it, as much of a body framed by its length as the gateway already
// holds (`held_bytes`, read with the header) and as still fits. A body the
// client sends only after 100 Continue, and a chunked one, follow as they
// are read.
FirstRecord first_upstream_record(const RequestFraming& framing, std::size_t head_bytes, std::size_t held_bytes);

// "<size in hex>\r\n": what precedes each piece of a chunked body the
// gateway writes upstream.
std::string chunk_header(std::uint64_t size);

// The methods a provider's API uses; anything else never reaches one.
bool forwardable_method(std::string_view method);

// For a 405's Allow field.
inline constexpr std::string_view kForwardableMethods = "GET, POST, DELETE, HEAD";

} // namespace nr::core
