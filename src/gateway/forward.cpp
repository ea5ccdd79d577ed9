// clang-format off
#include "gateway/asio_config.h"
// clang-format on
#include "gateway/connection.h"

#include <boost/asio/ssl/host_name_verification.hpp>

#include <array>
#include <cerrno>
#include <limits>
#include <memory>
#include <sys/socket.h>

namespace nr::gateway {

namespace ssl = asio::ssl;
using asio::awaitable;
using tcp = asio::ip::tcp;

namespace {

constexpr auto kConnectTimeout = std::chrono::seconds(30);
constexpr auto kUpstreamReadTimeout = std::chrono::minutes(5);
// Interim answers (100, 102, 103) the gateway reads past before the final one.
constexpr int kMaxInterimAnswers = 8;
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

} // namespace

void Connection::close_upstream()
{
    if (tls_upstream_) {
        beast::error_code ignored;
        beast::get_lowest_layer(*tls_upstream_).socket().close(ignored);
        tls_upstream_.reset();
    }
    upstream_host_.clear();
}

// A kept connection is used again only while it is quiet: anything to read
// on it (the upstream's close, stray bytes) means it is not at a request
// boundary any more, and a new connection is opened instead.
bool Connection::upstream_reusable(const std::string& host)
{
    if (!tls_upstream_ || upstream_host_ != host) {
        return false;
    }
    if (SSL_pending(tls_upstream_->native_handle()) > 0) {
        return false;
    }
    char byte = 0;
    const auto fd = beast::get_lowest_layer(*tls_upstream_).socket().native_handle();
    const auto n = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

awaitable<std::string> Connection::open_upstream(std::string host, std::string& reason)
{
    const auto where = core::split_host_port(host);
    std::string problem;
    const auto endpoints = co_await resolve(where, problem);
    if (endpoints.empty()) {
        reason = "destination";
        co_return problem;
    }
    reason = "upstream";
    tls_upstream_.emplace(shared_.io, shared_.tls);
    auto& upstream = *tls_upstream_;
    if (SSL_set_tlsext_host_name(upstream.native_handle(), where.name.c_str()) != 1) {
        close_upstream();
        co_return "bad SNI name";
    }
    upstream.set_verify_mode(ssl::verify_peer);
    upstream.set_verify_callback(ssl::host_name_verification(where.name));
    auto& lowest = beast::get_lowest_layer(upstream);
    lowest.expires_after(kConnectTimeout);
    beast::error_code ec;
    co_await lowest.async_connect(endpoints, with(ec));
    if (!ec) {
        beast::error_code ignored;
        lowest.socket().set_option(tcp::no_delay(true), ignored);
        co_await upstream.async_handshake(ssl::stream_base::client, with(ec));
    }
    if (ec) {
        close_upstream();
        co_return "cannot reach " + core::sanitize_host(host) + ": " + ec.message();
    }
    upstream_host_ = host;
    co_return std::string();
}

awaitable<bool> Connection::forward_request(const core::RouteForward& forward, RequestParser& parser,
                                            const core::RequestHead& head, const core::RequestFraming& framing,
                                            Exchange& exchange)
{
    const auto& provider = *forward.provider;
    // Before the body is read: trailers may add fields to the message.
    const bool is_head = head.method == "HEAD";
    const bool may_replay = replayable(head, framing);
    const bool body = framing.body != core::BodyFraming::None;
    const bool keep_after_refusal = framing.keep_alive && !body && !framing.expect_continue;
    const auto key = shared_.credentials.key(provider.credential);
    if (!key) {
        co_await refuse(exchange, 502, "credential",
                        "native-runtime gateway: the gateway has no credential " + provider.credential,
                        keep_after_refusal);
        co_return keep_after_refusal;
    }
    // Written from what the gateway parsed, never relayed raw; the key goes
    // from the locked memory straight into the TLS record, which is
    // encrypted in place. Each piece is written on its own: given several
    // buffers at once, Beast's ssl_stream copies them into one heap buffer
    // first, and that copy of the key would outlive the write (a core of
    // the gateway showed it).
    const auto upstream_head = core::upstream_request_head(head, forward, framing);
    const std::array<asio::const_buffer, 3> head_pieces{asio::buffer(upstream_head.before_key),
                                                        asio::buffer(key->data(), key->size()),
                                                        asio::buffer(upstream_head.after_key)};
    std::optional<http::response_parser<http::buffer_body>> answer;
    beast::flat_buffer answer_buffer;
    std::string problem;
    std::string reason = "upstream";
    bool continued = false;
    for (int attempt = 0; attempt < 2; ++attempt) {
        const bool reused = upstream_reusable(forward.host);
        if (!reused) {
            close_upstream();
            problem = co_await open_upstream(forward.host, reason);
            if (!problem.empty()) {
                break;
            }
        }
        auto& lowest = beast::get_lowest_layer(*tls_upstream_);
        lowest.expires_after(kUpstreamReadTimeout);
        beast::error_code ec;
        for (const auto& piece : head_pieces) {
            if (!ec) {
                co_await asio::async_write(*tls_upstream_, piece, with(ec));
            }
        }
        if (ec) {
            close_upstream();
            problem = "cannot send to " + core::sanitize_host(forward.host) + ": " + ec.message();
            reason = "upstream";
            // Nothing of the body was read yet: any request may go again.
            if (reused) {
                continue;
            }
            break;
        }
        if (framing.expect_continue && !continued) {
            continued = true;
            beast::error_code client_ec;
            co_await asio::async_write(client_.socket(), asio::buffer(kContinue), with(client_ec));
        }
        if (body) {
            const auto relayed = co_await relay_body(parser, framing, exchange);
            if (relayed != BodyRelay::Done) {
                // The upstream got part of a request: that connection is
                // spent, and so is the client's, whose framing is in doubt.
                close_upstream();
                if (relayed == BodyRelay::TooLarge) {
                    co_await refuse(exchange, 413, "request-too-large",
                                    "native-runtime gateway: the request is larger than this session allows", false);
                } else if (relayed == BodyRelay::BadChunk) {
                    co_await refuse(exchange, 400, "bad-chunk",
                                    "native-runtime gateway: a chunk header or trailer is malformed or too long",
                                    false);
                } else if (relayed == BodyRelay::NoMemory) {
                    co_await refuse(exchange, 503, "session-memory",
                                    "native-runtime gateway: this session holds as much memory in the gateway as it "
                                    "may",
                                    false);
                } else if (relayed == BodyRelay::UpstreamGone) {
                    co_await refuse(exchange, 502, "upstream",
                                    "native-runtime gateway: " + core::sanitize_host(forward.host) +
                                        " closed the connection during the request",
                                    false);
                } else {
                    exchange.record.refused = "client-gone";
                    cut();
                    finish(exchange);
                }
                co_return false;
            }
        }
        // Interim answers are the gateway's business, not the client's:
        // it has already said 100 Continue itself where it was asked to.
        answer_buffer.clear();
        for (int interim = 0; interim <= kMaxInterimAnswers; ++interim) {
            answer.emplace();
            answer->header_limit(static_cast<std::uint32_t>(
                std::min<std::uint64_t>(header_limit(), std::numeric_limits<std::uint32_t>::max())));
            answer->body_limit(session_->config.max_response_bytes);
            if (is_head) {
                answer->skip(true);
            }
            lowest.expires_after(kUpstreamReadTimeout);
            co_await http::async_read_header(*tls_upstream_, answer_buffer, *answer, with(ec));
            if (ec || answer->get().result_int() >= 200) {
                break;
            }
            if (answer->get().result_int() == 101) {
                break; // the gateway asked for no upgrade: refused below
            }
        }
        if (!ec && answer->get().result_int() < 200) {
            ec = http::error::bad_status;
        }
        if (!ec) {
            problem.clear();
            break;
        }
        close_upstream();
        reason = "upstream";
        problem = "no answer from " + core::sanitize_host(forward.host) + ": " + ec.message();
        // The upstream closed a kept connection at the moment the request
        // went out: it saw none of it, and a request without effects can go
        // again. Anything else it may have acted on is not repeated.
        if (!(reused && answer_buffer.size() == 0 && closed_before_answer(ec) && may_replay)) {
            break;
        }
    }
    if (!problem.empty()) {
        const bool keep = keep_after_refusal && !continued;
        co_await refuse(exchange, 502, reason, "native-runtime gateway: " + problem, keep);
        co_return keep;
    }
    co_return co_await relay_response(*answer, answer_buffer, framing.keep_alive, exchange);
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
    auto& lowest = beast::get_lowest_layer(*tls_upstream_);
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
        lowest.expires_after(kUpstreamReadTimeout);
        if (chunked) {
            const auto size_line = core::chunk_header(n);
            const std::array<asio::const_buffer, 3> piece{asio::buffer(size_line), asio::buffer(chunk.get(), n),
                                                          asio::buffer(kCrlf)};
            co_await asio::async_write(*tls_upstream_, piece, with(ec));
        } else {
            co_await asio::async_write(*tls_upstream_, asio::buffer(chunk.get(), n), with(ec));
        }
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

// Sends the upstream's answer, whose header `parser` has read, to the
// client piece by piece as it arrives: a streamed (SSE) answer reaches the
// session at the upstream's pace, and its size is bounded while it flows.
// The upstream connection is kept only after a whole answer the upstream
// itself framed and offered to keep.
awaitable<bool> Connection::relay_response(http::response_parser<http::buffer_body>& parser, beast::flat_buffer& buffer,
                                           bool keep_alive, Exchange& exchange)
{
    Reservation share(*session_, kRelayChunk);
    if (!share.granted()) {
        close_upstream();
        co_await refuse(exchange, 503, "session-memory",
                        "native-runtime gateway: this session holds as much memory in the gateway as it may", false);
        co_return false;
    }
    auto& upstream = *tls_upstream_;
    auto& lowest = beast::get_lowest_layer(upstream);
    beast::error_code ec;
    auto& response = parser.get();
    const bool upstream_keep = response.keep_alive();
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
    exchange.record.status = response.result_int();
    http::response_serializer<http::buffer_body> serializer{response};
    const auto chunk = std::make_unique<char[]>(kRelayChunk);
    const auto end_with_error = [&] {
        cut();
        finish(exchange);
        return false;
    };
    for (;;) {
        if (!parser.is_done()) {
            response.body().data = chunk.get();
            response.body().size = kRelayChunk;
            lowest.expires_after(kUpstreamReadTimeout);
            co_await http::async_read_some(upstream, buffer, parser, with(ec));
            if (ec == http::error::need_buffer) {
                ec = {};
            }
            if (ec == http::error::body_limit) {
                // Cut mid-answer: the record says why the client got less.
                exchange.record.refused = "response-too-large";
                co_return end_with_error();
            }
            if (ec) {
                co_return end_with_error();
            }
            const auto filled = kRelayChunk - response.body().size;
            response.body().size = filled;
            response.body().data = filled == 0 ? nullptr : chunk.get();
            response.body().more = !parser.is_done();
        } else {
            response.body().data = nullptr;
            response.body().size = 0;
            response.body().more = false;
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

} // namespace nr::gateway
