// SPDX-License-Identifier: Apache-2.0
// clang-format off
#include "gateway/asio_config.h"
// clang-format on
#include "gateway/connection.h"

#include "core/gateway/tls_client_hello.h"

#include <memory>

namespace nr::gateway {

using asio::awaitable;
using tcp = asio::ip::tcp;

namespace {

constexpr auto kConnectTimeout = std::chrono::seconds(30);
constexpr std::string_view kEstablished = "HTTP/1.1 200 Connection established\r\n\r\n";

} // namespace

// The first bytes of a tunnel must be a TLS ClientHello naming the host the
// CONNECT named: otherwise an allowed name would carry traffic for any
// other name its front end serves (domain fronting), or any protocol at
// all. Empty when it does, else the refusal's reason.
awaitable<std::string> Connection::await_client_hello(const std::string& host)
{
    const auto deadline = Clock::now() + std::chrono::seconds(session_->config.header_timeout_sec);
    for (;;) {
        const std::string_view seen(static_cast<const char*>(buffer_.data().data()), buffer_.size());
        const auto verdict = core::inspect_client_hello(seen);
        if (const auto* sni = std::get_if<core::ClientHelloSni>(&verdict)) {
            co_return core::sni_matches(sni->host, host) ? std::string() : std::string("sni-mismatch");
        }
        if (const auto* refusal = std::get_if<core::ClientHelloRefuse>(&verdict)) {
            co_return refusal->reason;
        }
        const auto wanted = std::get<core::ClientHelloNeedMore>(verdict).at_least;
        if (wanted > buffer_.max_size()) {
            co_return "too-large";
        }
        beast::error_code ec;
        bool timed_out = false;
        const auto n = co_await read_until(deadline, buffer_.prepare(wanted - buffer_.size()), ec, timed_out);
        buffer_.commit(n);
        if (!account_buffer()) {
            co_return "session-memory";
        }
        if (timed_out) {
            co_return "header-timeout";
        }
        if (ec) {
            co_return "client-gone";
        }
    }
}

awaitable<void> Connection::relay_tunnel(core::HostPort where, Exchange& exchange)
{
    const auto& config = session_->config;
    if (session_->open_tunnels >= config.max_tunnels) {
        co_await refuse(exchange, 503, "tunnel-limit",
                        "native-runtime gateway: this session has " + std::to_string(config.max_tunnels) +
                            " tunnels open, as many as it may",
                        false);
        co_return;
    }
    ++session_->open_tunnels;
    tunnel_open_ = true;
    Reservation share(*session_, 2 * kRelayChunk);
    if (!share.granted()) {
        co_await refuse(exchange, 503, "session-memory",
                        "native-runtime gateway: this session holds as much memory in the gateway as it may", false);
        co_return;
    }
    if (!co_await connect_tunnel(where, exchange)) {
        co_return;
    }
    if (!co_await open_tunnel(where.name, exchange)) {
        co_return;
    }
    // The upstream's direction runs beside this one; the record is written
    // when both have ended. Silence in both directions for
    // idle_timeout_sec ends the tunnel.
    const auto chunks = std::make_unique<char[]>(2 * kRelayChunk);
    last_activity_ = Clock::now();
    upstream_pump_running_ = true;
    tunnel_done_.expires_at(asio::steady_timer::time_point::max());
    asio::co_spawn(shared_.io, pump_upstream(chunks.get() + kRelayChunk), asio::detached);
    asio::co_spawn(shared_.io, watch_idle_tunnel(), asio::detached);
    co_await pump(client_.socket(), upstream_socket_, chunks.get(), exchange.record.bytes_in);
    if (upstream_pump_running_) {
        beast::error_code ec;
        co_await tunnel_done_.async_wait(with(ec));
    }
    idle_watch_.cancel();
    exchange.record.bytes_out += tunnel_bytes_out_;
    finish(exchange);
}

// The upstream's socket connected to an address of `where` the session may
// reach, within kConnectTimeout; false once the client has been refused.
awaitable<bool> Connection::connect_tunnel(core::HostPort where, Exchange& exchange)
{
    std::string problem;
    const auto endpoints = co_await resolve(where, problem);
    if (endpoints.empty()) {
        co_await refuse(exchange, 502, "destination", "native-runtime gateway: " + problem, false);
        co_return false;
    }
    beast::error_code ec;
    {
        asio::steady_timer limit(shared_.io);
        limit.expires_after(kConnectTimeout);
        limit.async_wait([self = shared_from_this()](const beast::error_code& error) {
            if (!error) {
                beast::error_code ignored;
                self->upstream_socket_.close(ignored);
            }
        });
        co_await asio::async_connect(upstream_socket_, endpoints, with(ec));
        limit.cancel();
    }
    if (ec) {
        co_await refuse(exchange, 502, "upstream",
                        "native-runtime gateway: cannot reach " + core::sanitize_host(where.name) + ": " + ec.message(),
                        false);
        co_return false;
    }
    beast::error_code ignored;
    upstream_socket_.set_option(tcp::no_delay(true), ignored);
    co_return true;
}

// Tells the client the tunnel is open, and passes its first bytes on once
// they are a ClientHello for `host`; false once the connection is cut and
// recorded.
awaitable<bool> Connection::open_tunnel(std::string host, Exchange& exchange)
{
    beast::error_code ec;
    client_.expires_never();
    exchange.record.status = 200;
    exchange.record.bytes_out += co_await asio::async_write(client_.socket(), asio::buffer(kEstablished), with(ec));
    if (!ec) {
        if (auto refusal = co_await await_client_hello(host); !refusal.empty()) {
            exchange.record.refused = refusal;
            cut();
            finish(exchange);
            co_return false;
        }
        // The ClientHello, and whatever followed it, goes on as it came.
        exchange.record.bytes_in += co_await asio::async_write(upstream_socket_, buffer_.data(), with(ec));
        buffer_.consume(buffer_.size());
    }
    if (ec) {
        cut();
        finish(exchange);
        co_return false;
    }
    co_return true;
}

awaitable<void> Connection::watch_idle_tunnel()
{
    const auto self = shared_from_this();
    const auto idle = std::chrono::seconds(session_->config.idle_timeout_sec);
    for (;;) {
        idle_watch_.expires_at(last_activity_ + idle);
        beast::error_code ec;
        co_await idle_watch_.async_wait(with(ec));
        if (ec) {
            co_return; // the tunnel ended
        }
        if (Clock::now() >= last_activity_ + idle) {
            cut();
            co_return;
        }
    }
}

awaitable<void> Connection::pump_upstream(char* chunk)
{
    const auto self = shared_from_this();
    co_await pump(upstream_socket_, client_.socket(), chunk, tunnel_bytes_out_);
    upstream_pump_running_ = false;
    tunnel_done_.cancel();
}

// One direction of a tunnel. At the source's end of stream the sink gets a
// half-close; on an error both sides close.
awaitable<void> Connection::pump(tcp::socket& from, tcp::socket& to, char* chunk, std::uint64_t& counted)
{
    const auto self = shared_from_this();
    for (;;) {
        beast::error_code ec;
        const auto n = co_await from.async_read_some(asio::buffer(chunk, kRelayChunk), with(ec));
        if (ec == asio::error::eof) {
            beast::error_code ignored;
            to.shutdown(tcp::socket::shutdown_send, ignored);
            co_return;
        }
        if (!ec) {
            last_activity_ = Clock::now();
            co_await asio::async_write(to, asio::buffer(chunk, n), with(ec));
        }
        if (ec) {
            cut();
            co_return;
        }
        counted += n;
    }
}

} // namespace nr::gateway
