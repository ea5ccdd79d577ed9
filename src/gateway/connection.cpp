// SPDX-License-Identifier: Apache-2.0
// clang-format off
#include "gateway/asio_config.h"
// clang-format on
#include "gateway/connection.h"

#include "core/gateway/gateway_destination.h"
#include "sys/base/journal_writer.h"

#include <array>
#include <limits>

namespace nr::gateway {

using asio::awaitable;
using tcp = asio::ip::tcp;

namespace {

constexpr unsigned kHttp11 = 11;
constexpr std::uint64_t kUsecPerSec = 1000000;
// What one read from a client may add to its buffer.
constexpr std::size_t kReadPiece = 4U << 10U;
constexpr std::string_view kHeadEnd = "\r\n\r\n";

std::uint64_t usec_since(Clock::time_point start)
{
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
}

std::chrono::seconds seconds(std::uint64_t value)
{
    return std::chrono::seconds(static_cast<std::chrono::seconds::rep>(value));
}

// The header as the core reads it; views into the parser's message.
core::RequestHead head_of(const http::request<http::buffer_body>& request)
{
    core::RequestHead head;
    head.method = std::string_view(request.method_string().data(), request.method_string().size());
    head.target = std::string_view(request.target().data(), request.target().size());
    head.version = request.version();
    for (const auto& field : request) {
        head.fields.emplace_back(std::string_view(field.name_string().data(), field.name_string().size()),
                                 std::string_view(field.value().data(), field.value().size()));
    }
    return head;
}

// The session's token, in the header that carries the key upstream.
bool presents_token(const http::request<http::buffer_body>& request, const core::ProviderRoute& provider,
                    const std::string& token)
{
    const auto presented = request[provider.header];
    return core::token_matches(provider, std::string_view(presented.data(), presented.size()), token);
}

} // namespace

Connection::Connection(Shared& shared, std::shared_ptr<Session> session, tcp::socket socket)
    : shared_(shared), session_(std::move(session)), host_load_(shared.host_load), client_(std::move(socket)),
      // A header, or a chunk-size line or trailer, never grows it further.
      buffer_(session_->config.max_header_bytes + kRelayChunk), buffer_share_(*session_, 0),
      upstream_socket_(shared.io), tunnel_done_(shared.io), idle_watch_(shared.io)
{
    ++session_->open_connections;
    ++host_load_->open_connections;
}

Connection::~Connection()
{
    --session_->open_connections;
    --host_load_->open_connections;
    if (tunnel_open_) {
        --session_->open_tunnels;
    }
}

void Connection::cut()
{
    beast::error_code ignored;
    client_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    client_.socket().close(ignored);
    upstream_socket_.close(ignored);
    if (tls_upstream_) {
        beast::get_lowest_layer(*tls_upstream_).socket().close(ignored);
    }
    idle_watch_.cancel();
}

std::uint64_t Connection::header_limit() const
{
    return session_->config.max_header_bytes;
}

bool Connection::account_buffer()
{
    return buffer_share_.resize(buffer_.capacity());
}

// Unlike tcp_stream's own timeout, which closes the socket, this leaves it
// open, so that the client can still be told why (408).
awaitable<std::size_t> Connection::read_until(Clock::time_point deadline, asio::mutable_buffer into,
                                              beast::error_code& ec, bool& timed_out)
{
    client_.expires_never();
    asio::steady_timer timer(shared_.io);
    timer.expires_at(deadline);
    auto fired = std::make_shared<bool>(false);
    timer.async_wait([self = shared_from_this(), fired](const beast::error_code& error) {
        if (!error) {
            *fired = true;
            beast::error_code ignored;
            self->client_.socket().cancel(ignored);
        }
    });
    const auto n = co_await client_.async_read_some(into, with(ec));
    timer.cancel();
    timed_out = *fired;
    co_return n;
}

awaitable<Connection::HeadRead> Connection::read_head(std::size_t& head_size)
{
    const auto& config = session_->config;
    // Empty lines before a request line are allowed (RFC 9112 2.2).
    while (buffer_.size() >= 2 && std::string_view(static_cast<const char*>(buffer_.data().data()), 2) == "\r\n") {
        buffer_.consume(2);
    }
    // A new connection's first header is due header_timeout_sec after the
    // accept, whether or not a byte came: an idle connection is no cheaper
    // to hold than a slow one. Between kept-alive requests the clock starts
    // with the next request's first byte.
    bool started = buffer_.size() > 0 || first_request_;
    auto deadline = (first_request_ ? accepted_at_ : Clock::now()) + seconds(config.header_timeout_sec);
    for (;;) {
        const std::string_view seen(static_cast<const char*>(buffer_.data().data()), buffer_.size());
        const auto end = seen.find(kHeadEnd);
        if (end != std::string_view::npos && end + kHeadEnd.size() <= header_limit()) {
            head_size = end + kHeadEnd.size();
            co_return HeadRead::Complete;
        }
        if (seen.size() >= header_limit()) {
            co_return HeadRead::TooLarge;
        }
        // Between requests a kept-alive connection may stay silent for
        // idle_timeout_sec; once a request has begun, its whole header must
        // come within header_timeout_sec (no slowloris).
        const auto until = started ? deadline : Clock::now() + seconds(config.idle_timeout_sec);
        beast::error_code ec;
        bool timed_out = false;
        const auto room = std::min<std::uint64_t>(kReadPiece, header_limit() - seen.size());
        const auto n = co_await read_until(until, buffer_.prepare(room), ec, timed_out);
        buffer_.commit(n);
        if (!account_buffer()) {
            co_return HeadRead::NoMemory;
        }
        if (timed_out) {
            co_return started ? HeadRead::TimedOut : HeadRead::Closed;
        }
        if (ec) {
            co_return HeadRead::Closed;
        }
        if (!started && n > 0) {
            started = true;
            deadline = Clock::now() + seconds(config.header_timeout_sec);
        }
    }
}

awaitable<void> Connection::serve()
{
    const auto self = shared_from_this();
    beast::error_code ignored;
    client_.socket().set_option(tcp::no_delay(true), ignored);
    while (!session_->revoked) {
        std::size_t head_size = 0;
        const auto outcome = co_await read_head(head_size);
        if (session_->revoked || outcome == HeadRead::Closed) {
            co_return;
        }
        Exchange exchange;
        exchange.record.bytes_in = buffer_.size();
        if (outcome != HeadRead::Complete) {
            co_await refuse_head(outcome, exchange);
            co_return;
        }
        RequestParser parser;
        if (!co_await parse_head(parser, head_size, exchange)) {
            co_return;
        }
        first_request_ = false;
        const bool keep = co_await handle(parser, head_size);
        if (!keep || session_->revoked) {
            co_return;
        }
    }
}

// A header that never came whole: the connection ends after the refusal.
awaitable<void> Connection::refuse_head(HeadRead outcome, Exchange& exchange)
{
    if (outcome == HeadRead::TooLarge) {
        co_await refuse(exchange, 431, "header-too-large",
                        "native-runtime gateway: the request header is larger than this session allows", false);
    } else if (outcome == HeadRead::TimedOut) {
        co_await refuse(exchange, 408, "header-timeout",
                        "native-runtime gateway: the request header did not arrive in time", false);
    } else if (outcome == HeadRead::NoMemory) {
        co_await refuse(exchange, 503, "session-memory",
                        "native-runtime gateway: this session holds as much memory in the gateway as it may", false);
    }
}

// The header's `head_size` bytes into `parser`, which then waits for the
// body; false once a header the gateway cannot trust has been refused.
awaitable<bool> Connection::parse_head(RequestParser& parser, std::size_t head_size, Exchange& exchange)
{
    const std::string_view raw(static_cast<const char*>(buffer_.data().data()), head_size);
    exchange.record.bytes_in = head_size;
    if (core::has_obs_fold(raw)) {
        co_await refuse(exchange, 400, "bad-framing",
                        "native-runtime gateway: a header line is continued on the next (obs-fold)", false);
        co_return false;
    }
    parser.eager(false);
    parser.header_limit(
        static_cast<std::uint32_t>(std::min<std::uint64_t>(header_limit(), std::numeric_limits<std::uint32_t>::max())));
    parser.body_limit(session_->config.max_request_bytes);
    beast::error_code ec;
    parser.put(asio::buffer(buffer_.data().data(), head_size), ec);
    buffer_.consume(head_size);
    if (ec == http::error::bad_content_length || ec == http::error::bad_transfer_encoding) {
        co_await refuse(exchange, 400, "bad-framing",
                        "native-runtime gateway: the request's Content-Length or Transfer-Encoding is in doubt", false);
        co_return false;
    }
    if (ec == http::error::body_limit) {
        co_await refuse(exchange, 413, "request-too-large",
                        "native-runtime gateway: the request is larger than this session allows", false);
        co_return false;
    }
    if (ec || !parser.is_header_done()) {
        exchange.record.method = "-";
        co_await refuse(exchange, 400, "malformed", "native-runtime gateway: not an HTTP/1.1 request", false);
        co_return false;
    }
    co_return true;
}

awaitable<bool> Connection::handle(RequestParser& parser, std::size_t head_size)
{
    const auto& request = parser.get();
    const auto head = head_of(request);
    Exchange exchange;
    exchange.record.bytes_in = head_size;
    exchange.record.method = std::string(head.method);
    const auto check = core::check_request_head(head);
    if (const auto* refusal = std::get_if<core::RequestRefusal>(&check)) {
        // The framing is in doubt, so is where the next request begins.
        co_await refuse(exchange, refusal->status, refusal->reason, refusal->message, false);
        co_return false;
    }
    const auto& framing = std::get<core::RequestFraming>(check);
    // A refused request's body is never read: the connection can be kept
    // only when there is none.
    const bool keep_after_refusal = framing.keep_alive && framing.body == core::BodyFraming::None &&
                                    !framing.expect_continue && request.method() != http::verb::connect;
    const auto& config = session_->config;
    const auto route = core::decide_route(config.egress, head.method, head.target, session_->port);
    if (const auto* refusal = std::get_if<core::RouteRefuse>(&route)) {
        co_await refuse_route(*refusal, keep_after_refusal, exchange);
        co_return keep_after_refusal;
    }
    const auto* tunnel = std::get_if<core::RouteTunnel>(&route);
    const auto* forward = std::get_if<core::RouteForward>(&route);
    exchange.record.host = tunnel != nullptr ? core::sanitize_host(tunnel->host) : forward->host;
    if (forward != nullptr && !presents_token(request, *forward->provider, config.token)) {
        co_await refuse(exchange, 403, "token", "native-runtime gateway: this session's token is required",
                        keep_after_refusal);
        co_return keep_after_refusal;
    }
    if (!co_await admit_to_budget(keep_after_refusal, exchange)) {
        co_return keep_after_refusal;
    }
    if (tunnel != nullptr) {
        core::HostPort where{tunnel->host, tunnel->port};
        co_await relay_tunnel(std::move(where), exchange);
        co_return false;
    }
    co_return co_await forward_request(*forward, parser, head, framing, exchange);
}

awaitable<void> Connection::refuse_route(const core::RouteRefuse& refusal, bool keep_alive, Exchange& exchange)
{
    exchange.record.host = refusal.host;
    // Named first: GCC 12 destroys a conditional's temporary inside a
    // co_await expression twice (GCC bug 100611).
    std::string allow_name;
    std::string allow_value;
    if (refusal.reason == "method") {
        allow_name = "Allow";
        allow_value = core::kForwardableMethods;
    }
    co_await refuse(exchange, refusal.status, refusal.reason, core::refusal_message(refusal), keep_alive, allow_name,
                    allow_value);
}

// Only what the gateway would relay counts against the owner's budget:
// a refused destination or a wrong token costs nothing upstream. False
// once the request has been refused.
awaitable<bool> Connection::admit_to_budget(bool keep_after_refusal, Exchange& exchange)
{
    const auto& config = session_->config;
    const auto budget = shared_.budget.admit(config.owner, config.request_budget,
                                             config.budget_window_sec * kUsecPerSec, steady_now_usec());
    exchange.record.budget_used = budget.used;
    if (!budget.admitted) {
        co_await refuse(exchange, 429, "budget",
                        "native-runtime gateway: owner " + config.owner + " has used its " +
                            std::to_string(config.request_budget) + " requests of the last " +
                            std::to_string(config.budget_window_sec) + " s; retry in " +
                            std::to_string(budget.retry_after_sec) + " s",
                        keep_after_refusal, "Retry-After", std::to_string(budget.retry_after_sec));
        co_return false;
    }
    co_return true;
}

void Connection::finish(Exchange& exchange)
{
    exchange.record.duration_usec = usec_since(exchange.start);
    auto& counters = session_->counters;
    ++counters.requests;
    counters.bytes_in += exchange.record.bytes_in;
    counters.bytes_out += exchange.record.bytes_out;
    if (exchange.record.refused.empty()) {
        sys::write_log(core::gateway_request_record(session_->config, exchange.record));
    } else {
        record_refusal(*session_, exchange.record);
    }
}

// Coroutine parameters are taken by value: GCC 12 destroys a temporary
// bound to a reference parameter inside a co_await expression twice
// (GCC bug 100611), which is a double free for a std::string.
awaitable<void> Connection::refuse(Exchange& exchange, unsigned status, std::string reason, std::string body,
                                   bool keep_alive, std::string extra_name, std::string extra_value)
{
    http::response<http::string_body> response{static_cast<http::status>(status), kHttp11};
    if (!extra_name.empty()) {
        response.set(extra_name, extra_value);
    }
    response.set(http::field::content_type, "text/plain; charset=utf-8");
    response.set("X-Native-Runtime-Refused", reason);
    response.keep_alive(keep_alive);
    response.body() = body + "\n";
    response.prepare_payload();
    exchange.record.refused = reason;
    exchange.record.status = status;
    if (exchange.record.method.empty()) {
        exchange.record.method = "-";
    }
    beast::error_code ec;
    client_.expires_after(seconds(session_->config.idle_timeout_sec));
    exchange.record.bytes_out += co_await http::async_write(client_, response, with(ec));
    finish(exchange);
    if (!keep_alive && !ec) {
        co_await drain();
    }
}

// Closing a socket with unread input makes the kernel answer with a reset,
// which can destroy the refusal before the client reads it: stop sending,
// then swallow what the client still sends, for a moment and a bounded
// amount.
awaitable<void> Connection::drain()
{
    constexpr auto kDrainTime = std::chrono::seconds(2);
    constexpr std::size_t kDrainPiece = 4U << 10U;
    beast::error_code ec;
    client_.socket().shutdown(tcp::socket::shutdown_send, ec);
    client_.expires_after(kDrainTime);
    std::array<char, kDrainPiece> scratch{};
    std::uint64_t swallowed = 0;
    while (!ec && swallowed <= session_->config.max_request_bytes) {
        swallowed += co_await client_.async_read_some(asio::buffer(scratch), with(ec));
    }
}

awaitable<std::vector<tcp::endpoint>> Connection::resolve(core::HostPort where, std::string& problem)
{
    tcp::resolver resolver(shared_.io);
    beast::error_code ec;
    const auto results = co_await resolver.async_resolve(where.name, std::to_string(where.port), with(ec));
    std::vector<tcp::endpoint> allowed;
    if (ec) {
        problem = "cannot resolve " + core::sanitize_host(where.name);
        co_return allowed;
    }
    for (const auto& entry : results) {
        const auto address = entry.endpoint().address();
        std::vector<std::uint8_t> bytes;
        int family = AF_INET;
        if (address.is_v4()) {
            const auto b = address.to_v4().to_bytes();
            bytes.assign(b.begin(), b.end());
        } else {
            const auto b = address.to_v6().to_bytes();
            bytes.assign(b.begin(), b.end());
            family = AF_INET6;
        }
        if (core::destination_allowed(family, bytes, session_->config.egress.allow_addresses)) {
            allowed.push_back(entry.endpoint());
        }
    }
    if (allowed.empty()) {
        problem = core::sanitize_host(where.name) + " resolves only to addresses this session may not reach";
    }
    co_return allowed;
}

} // namespace nr::gateway
