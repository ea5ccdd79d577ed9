// SPDX-License-Identifier: Apache-2.0
// clang-format off
#include "gateway/asio_config.h"
// clang-format on
#include "gateway/connection.h"

#include <array>
#include <memory>
#include <optional>

namespace nr::gateway {

namespace ssl = asio::ssl;
using asio::awaitable;

namespace {

constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
constexpr std::string_view kCrlf = "\r\n";
constexpr std::string_view kLastChunk = "0\r\n\r\n";

// An upstream that closed a kept connection before reading a request says
// so with one of these, and nothing of an answer.
bool closed_before_answer(const beast::error_code& ec)
{
    return ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
           ec == asio::error::broken_pipe || ec == ssl::error::stream_truncated;
}

// Sent again on a new connection only when the upstream cannot have acted
// on it: no body, a method that changes nothing twice.
bool replayable(const core::RequestHead& head, const core::RequestFraming& framing)
{
    return framing.body == core::BodyFraming::None &&
           (head.method == "GET" || head.method == "HEAD" || head.method == "DELETE");
}

// Drops the hop-by-hop fields of the upstream's answer and says whether
// the client's connection can be kept after it.
bool prepare_client_response(ResponseParser& parser, bool keep_alive)
{
    auto& response = parser.get();
    const auto connection_value = response[http::field::connection];
    for (const auto& name :
         core::hop_by_hop_headers(std::string_view(connection_value.data(), connection_value.size()))) {
        response.erase(name);
    }
    // Without a length or chunking the body ends with the connection, so
    // the client's connection has to end with it too (a HEAD answer has no
    // body whatever its length says).
    const bool framed = parser.is_done() || response.has_content_length() || response.chunked();
    const bool client_keep = keep_alive && framed;
    response.keep_alive(client_keep);
    return client_keep;
}

// An upstream's header or chunk metadata beyond what the answer's buffer
// or parser holds.
bool answer_too_large(const beast::error_code& ec)
{
    return ec == http::error::buffer_overflow || ec == http::error::header_limit;
}

} // namespace

// One request on its way to a provider: what every attempt sends, and what
// the attempts came to.
struct Connection::Forwarding {
    const core::RouteForward& forward;
    const core::RequestFraming& framing;
    core::UpstreamHead head; // the parsed head, without the key
    std::string_view key;    // in the credential store's locked memory
    core::FirstRecord first{};
    std::string held_body{}; // what came of the body with the header, for the first record
    std::optional<Reservation> held_body_share{};
    bool may_replay = false;
    bool is_head = false;
    std::optional<ResponseParser> answer{}; // its header read, once answered
    // Bounded as the client's side is: an upstream's endless header line
    // or chunk metadata ends the request instead of growing the gateway.
    beast::flat_buffer answer_buffer;
    std::string problem{}; // why the request got no answer, for the 502
    std::string reason = "upstream";
    bool continued = false; // the client was told 100 Continue
};

awaitable<bool> Connection::forward_request(const core::RouteForward& forward, RequestParser& parser,
                                            const core::RequestHead& head, const core::RequestFraming& framing,
                                            Exchange& exchange)
{
    const auto& provider = *forward.provider;
    const bool body = framing.body != core::BodyFraming::None;
    const bool keep_after_refusal = framing.keep_alive && !body && !framing.expect_continue;
    const auto key = shared_.credentials.key(provider.credential);
    if (!key) {
        co_await refuse(exchange, 502, "credential",
                        "native-runtime gateway: the gateway has no credential " + provider.credential,
                        keep_after_refusal);
        co_return keep_after_refusal;
    }
    // Before the body is read: trailers may add fields to the message.
    Forwarding request{.forward = forward,
                       .framing = framing,
                       .head = core::upstream_request_head(head, forward, framing),
                       .key = *key,
                       .may_replay = replayable(head, framing),
                       .is_head = head.method == "HEAD",
                       .answer_buffer = beast::flat_buffer(session_->config.max_header_bytes + kRelayChunk)};
    request.first = core::first_upstream_record(
        framing, request.head.before_key.size() + request.key.size() + request.head.after_key.size(), buffer_.size());
    if (!take_held_body(parser, request.first.body_bytes, request, exchange)) {
        co_await refuse(exchange, 400, "bad-framing", "native-runtime gateway: the request's body is malformed", false);
        co_return false;
    }
    for (int attempt = 0; attempt < 2; ++attempt) {
        const auto outcome = co_await attempt_forward(request, parser, exchange);
        if (outcome == Attempt::Refused) {
            co_return false;
        }
        if (outcome != Attempt::Again) {
            break;
        }
    }
    if (!request.problem.empty()) {
        const bool keep = keep_after_refusal && !request.continued;
        co_await refuse(exchange, 502, request.reason, "native-runtime gateway: " + request.problem, keep);
        co_return keep;
    }
    co_return co_await relay_response(*request.answer, request.answer_buffer, framing.keep_alive, exchange);
}

// One attempt: the kept upstream connection or a new one, the head with the
// key, the body, and the final answer's header. Again when the request may
// go once more on a new connection; Refused when the client has been
// answered (or cut) already.
awaitable<Connection::Attempt> Connection::attempt_forward(Forwarding& request, RequestParser& parser,
                                                           Exchange& exchange)
{
    const auto& host = request.forward.host;
    const bool reused = upstream_reusable(host);
    if (!reused) {
        close_upstream();
        request.problem = co_await open_upstream(host, request.reason);
        if (!request.problem.empty()) {
            co_return Attempt::Failed;
        }
    }
    auto ec = co_await write_upstream_head(request.head, request.key, request.held_body, request.first.whole_head);
    if (ec) {
        close_upstream();
        request.problem = "cannot send to " + core::sanitize_host(host) + ": " + ec.message();
        request.reason = "upstream";
        // The body read so far is in held_body and goes again with the
        // head: any request may go again.
        co_return reused ? Attempt::Again : Attempt::Failed;
    }
    if (request.framing.expect_continue && !request.continued) {
        request.continued = true;
        beast::error_code client_ec;
        co_await asio::async_write(client_.socket(), asio::buffer(kContinue), with(client_ec));
    }
    if (request.framing.body != core::BodyFraming::None) {
        const auto relayed = co_await relay_body(parser, request.framing, exchange);
        if (relayed != BodyRelay::Done) {
            co_await refuse_body(relayed, host, exchange);
            co_return Attempt::Refused;
        }
    }
    ec = co_await read_final_answer(request.answer, request.answer_buffer, request.is_head);
    if (!ec) {
        request.problem.clear();
        co_return Attempt::Answered;
    }
    close_upstream();
    request.reason = answer_too_large(ec) ? "upstream-too-large" : "upstream";
    request.problem = "no answer from " + core::sanitize_host(host) + ": " + ec.message();
    // The upstream closed a kept connection at the moment the request
    // went out: it saw none of it, and a request without effects can go
    // again. Anything else it may have acted on is not repeated.
    const bool again = reused && request.answer_buffer.size() == 0 && closed_before_answer(ec) && request.may_replay;
    co_return again ? Attempt::Again : Attempt::Failed;
}

// The body bytes that came with the header, taken out of the client's
// buffer now so that they go upstream in the head's record; relay_body
// carries on with the rest. False when the parser will not take them.
bool Connection::take_held_body(RequestParser& parser, std::size_t count, Forwarding& request, Exchange& exchange)
{
    if (count == 0) {
        return true;
    }
    request.held_body_share.emplace(*session_, count);
    if (!request.held_body_share->granted()) {
        return true; // relay_body reads it piece by piece, within the session's share
    }
    request.held_body.resize(count);
    auto& body = parser.get().body();
    body.data = request.held_body.data();
    body.size = count;
    beast::error_code ec;
    while (body.size > 0 && !parser.is_done() && buffer_.size() > 0) {
        const auto used = parser.put(buffer_.data(), ec);
        buffer_.consume(used);
        if (ec == http::error::need_buffer) {
            ec = {};
        }
        if (ec || used == 0) {
            break;
        }
    }
    request.held_body.resize(count - body.size);
    body.data = nullptr;
    body.size = 0;
    exchange.record.bytes_in += request.held_body.size();
    return !ec;
}

// The upstream got part of a request: that connection is spent, and so is
// the client's, whose framing is in doubt.
awaitable<void> Connection::refuse_body(BodyRelay relayed, const std::string& host, Exchange& exchange)
{
    close_upstream();
    if (relayed == BodyRelay::TooLarge) {
        co_await refuse(exchange, 413, "request-too-large",
                        "native-runtime gateway: the request is larger than this session allows", false);
    } else if (relayed == BodyRelay::BadChunk) {
        co_await refuse(exchange, 400, "bad-chunk",
                        "native-runtime gateway: a chunk header or trailer is malformed or too long", false);
    } else if (relayed == BodyRelay::NoMemory) {
        co_await refuse(exchange, 503, "session-memory",
                        "native-runtime gateway: this session holds as much memory in the gateway as it "
                        "may",
                        false);
    } else if (relayed == BodyRelay::UpstreamGone) {
        co_await refuse(exchange, 502, "upstream",
                        "native-runtime gateway: " + core::sanitize_host(host) +
                            " closed the connection during the request",
                        false);
    } else {
        exchange.record.refused = "client-gone";
        cut();
        finish(exchange);
    }
}

awaitable<Connection::BodyRelay> Connection::relay_body(RequestParser& parser, const core::RequestFraming& framing,
                                                        Exchange& exchange)
{
    Reservation share(*session_, kRelayChunk);
    if (!share.granted()) {
        co_return BodyRelay::NoMemory;
    }
    const auto chunk = std::make_unique<char[]>(kRelayChunk);
    auto& body = parser.get().body();
    const bool chunked = framing.body == core::BodyFraming::Chunked;
    while (!parser.is_done()) {
        body.data = chunk.get();
        body.size = kRelayChunk;
        beast::error_code ec;
        client_.expires_after(std::chrono::seconds(session_->config.idle_timeout_sec));
        co_await http::async_read_some(client_, buffer_, parser, with(ec));
        if (!account_buffer()) {
            co_return BodyRelay::NoMemory;
        }
        if (ec == http::error::need_buffer) {
            ec = {};
        }
        if (ec == http::error::body_limit) {
            co_return BodyRelay::TooLarge;
        }
        if (ec == beast::http::error::buffer_overflow || ec == http::error::bad_chunk ||
            ec == http::error::bad_chunk_extension || ec == http::error::header_limit || ec == http::error::bad_field ||
            ec == http::error::bad_value) {
            co_return BodyRelay::BadChunk;
        }
        if (ec) {
            co_return BodyRelay::ClientGone;
        }
        const auto n = kRelayChunk - body.size;
        if (n == 0) {
            continue;
        }
        exchange.record.bytes_in += n;
        ec = co_await write_body_piece(chunk.get(), n, chunked);
        if (ec) {
            co_return BodyRelay::UpstreamGone;
        }
    }
    if (chunked) {
        beast::error_code ec;
        co_await asio::async_write(*tls_upstream_, asio::buffer(kLastChunk), with(ec));
        if (ec) {
            co_return BodyRelay::UpstreamGone;
        }
    }
    co_return BodyRelay::Done;
}

// One piece of the body as read, framed as one chunk when the request is
// chunked.
awaitable<beast::error_code> Connection::write_body_piece(const char* data, std::size_t size, bool chunked)
{
    beast::get_lowest_layer(*tls_upstream_).expires_after(kUpstreamReadTimeout);
    beast::error_code ec;
    if (chunked) {
        const auto size_line = core::chunk_header(size);
        const std::array<asio::const_buffer, 3> piece{asio::buffer(size_line), asio::buffer(data, size),
                                                      asio::buffer(kCrlf)};
        co_await asio::async_write(*tls_upstream_, piece, with(ec));
    } else {
        co_await asio::async_write(*tls_upstream_, asio::buffer(data, size), with(ec));
    }
    co_return ec;
}

// Sends the upstream's answer, whose header `parser` has read, to the
// client piece by piece as it arrives: a streamed (SSE) answer reaches the
// session at the upstream's pace, and its size is bounded while it flows.
// The upstream connection is kept only after a whole answer the upstream
// itself framed and offered to keep.
awaitable<bool> Connection::relay_response(ResponseParser& parser, beast::flat_buffer& buffer, bool keep_alive,
                                           Exchange& exchange)
{
    Reservation share(*session_, kRelayChunk);
    if (!share.granted()) {
        close_upstream();
        co_await refuse(exchange, 503, "session-memory",
                        "native-runtime gateway: this session holds as much memory in the gateway as it may", false);
        co_return false;
    }
    auto& response = parser.get();
    const bool upstream_keep = response.keep_alive();
    const bool client_keep = prepare_client_response(parser, keep_alive);
    exchange.record.status = response.result_int();
    http::response_serializer<http::buffer_body> serializer{response};
    const auto chunk = std::make_unique<char[]>(kRelayChunk);
    const auto end_with_error = [&] {
        cut();
        finish(exchange);
        return false;
    };
    for (;;) {
        auto ec = co_await read_response_piece(parser, buffer, chunk.get());
        if (ec == http::error::body_limit) {
            // Cut mid-answer: the record says why the client got less.
            exchange.record.refused = "response-too-large";
            co_return end_with_error();
        }
        if (answer_too_large(ec)) {
            exchange.record.refused = "upstream-too-large";
            co_return end_with_error();
        }
        if (ec) {
            co_return end_with_error();
        }
        client_.expires_after(std::chrono::seconds(session_->config.idle_timeout_sec));
        exchange.record.bytes_out += co_await http::async_write(client_, serializer, with(ec));
        if (ec == http::error::need_buffer) {
            ec = {};
        }
        if (ec) {
            co_return end_with_error();
        }
        if (serializer.is_done()) {
            break;
        }
    }
    if (!upstream_keep || !parser.is_done() || buffer.size() > 0) {
        close_upstream();
    }
    finish(exchange);
    co_return client_keep;
}

// The answer's next piece into `chunk`, or its end once the upstream has
// sent all of it.
awaitable<beast::error_code> Connection::read_response_piece(ResponseParser& parser, beast::flat_buffer& buffer,
                                                             char* chunk)
{
    auto& body = parser.get().body();
    beast::error_code ec;
    if (parser.is_done()) {
        body.data = nullptr;
        body.size = 0;
        body.more = false;
        co_return ec;
    }
    body.data = chunk;
    body.size = kRelayChunk;
    beast::get_lowest_layer(*tls_upstream_).expires_after(kUpstreamReadTimeout);
    co_await http::async_read_some(*tls_upstream_, buffer, parser, with(ec));
    if (ec == http::error::need_buffer) {
        ec = {};
    }
    if (ec) {
        co_return ec;
    }
    const auto filled = kRelayChunk - body.size;
    body.size = filled;
    body.data = filled == 0 ? nullptr : chunk;
    body.more = !parser.is_done();
    co_return ec;
}

} // namespace nr::gateway
