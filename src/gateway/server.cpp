// clang-format off
#include "gateway/asio_config.h"
// clang-format on
#include "gateway/server.h"

#include "core/egress.h"
#include "core/error.h"
#include "core/gateway_destination.h"
#include "core/gateway_log.h"
#include "core/gateway_route.h"
#include "core/request_budget.h"
#include "gateway/control_socket.h"
#include "gateway/credential_store.h"
#include "gateway/session_store.h"
#include "sys/journal_writer.h"

#include <boost/asio.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <array>
#include <chrono>
#include <iostream>
#include <limits>
#include <list>
#include <map>
#include <sys/socket.h>

namespace nr::gateway {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using asio::awaitable;
using asio::use_awaitable;
using Clock = std::chrono::steady_clock;

constexpr auto kIdleTimeout = std::chrono::minutes(10);
constexpr auto kConnectTimeout = std::chrono::seconds(30);
constexpr auto kUpstreamReadTimeout = std::chrono::minutes(5);
constexpr std::size_t kRelayChunk = 16U << 10U;
constexpr unsigned kHttp11 = 11;
constexpr std::uint64_t kUsecPerSec = 1000000;

auto with(beast::error_code& ec)
{
    return asio::redirect_error(use_awaitable, ec);
}

class Connection;

struct Session {
    core::GatewaySession config;
    tcp::acceptor acceptor;
    std::uint16_t port = 0;
    core::GatewayCounters counters;
    std::list<std::weak_ptr<Connection>> connections;
    bool revoked = false;
    std::string stored_as; // its name in systemd's descriptor store, if kept there

    Session(asio::io_context& io, core::GatewaySession session) : config(std::move(session)), acceptor(io) {}
};

struct Shared {
    asio::io_context& io;
    ssl::context tls;
    CredentialStore credentials;
    std::map<std::string, std::shared_ptr<Session>> sessions;
    // Per owner, across the owner's sessions; held in memory only, so a
    // restart of the gateway starts every owner's window afresh.
    core::RequestBudget budget;
};

// The outcome of one request, for the journal and the counters.
struct Exchange {
    core::GatewayExchange record;
    Clock::time_point start = Clock::now();
};

std::uint64_t steady_now_usec()
{
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now().time_since_epoch()).count());
}

std::uint64_t usec_since(Clock::time_point start)
{
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
}

void set_nodelay(tcp::socket& socket)
{
    beast::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
}

class Connection : public std::enable_shared_from_this<Connection> {
public:
    Connection(Shared& shared, std::shared_ptr<Session> session, tcp::socket socket)
        : shared_(shared), session_(std::move(session)), client_(std::move(socket)), upstream_socket_(shared.io),
          tunnel_done_(shared.io)
    {
    }

    // Revocation: every socket of this connection closes; pending
    // operations end with operation_aborted and the coroutines unwind.
    void cut()
    {
        beast::error_code ignored;
        client_.socket().shutdown(tcp::socket::shutdown_both, ignored);
        client_.socket().close(ignored);
        upstream_socket_.close(ignored);
        if (tls_upstream_) {
            beast::get_lowest_layer(*tls_upstream_).socket().close(ignored);
        }
    }

    awaitable<void> serve()
    {
        const auto self = shared_from_this();
        set_nodelay(client_.socket());
        beast::flat_buffer buffer;
        for (;;) {
            http::request_parser<http::string_body> parser;
            parser.header_limit(header_limit());
            parser.body_limit(session_->config.max_request_bytes);
            client_.expires_after(kIdleTimeout);
            beast::error_code ec;
            const auto read = co_await http::async_read(client_, buffer, parser, with(ec));
            if (session_->revoked) {
                co_return;
            }
            Exchange exchange;
            exchange.record.bytes_in = read;
            if (ec == http::error::header_limit || ec == http::error::body_limit) {
                const bool header = ec == http::error::header_limit;
                co_await refuse(
                    exchange, header ? http::status::request_header_fields_too_large : http::status::payload_too_large,
                    header ? "header-too-large" : "request-too-large",
                    "native-runtime gateway: the request is larger than this session allows", false);
                co_await drain();
                co_return;
            }
            if (ec) {
                co_return; // the client closed, timed out or spoke no HTTP
            }
            auto request = parser.release();
            exchange.record.method = std::string(request.method_string());
            const bool keep = co_await handle(std::move(request), buffer, exchange);
            if (!keep || session_->revoked) {
                co_return;
            }
        }
    }

private:
    std::uint32_t header_limit() const
    {
        constexpr std::uint64_t kMax = std::numeric_limits<std::uint32_t>::max();
        return static_cast<std::uint32_t>(std::min(session_->config.max_header_bytes, kMax));
    }

    // Closing a socket with unread input makes the kernel answer with a
    // reset, which can destroy the refusal before the client reads it: stop
    // sending, then swallow what the client still sends, for a moment.
    awaitable<void> drain()
    {
        constexpr auto kDrainTime = std::chrono::seconds(2);
        beast::error_code ec;
        client_.socket().shutdown(tcp::socket::shutdown_send, ec);
        client_.expires_after(kDrainTime);
        std::array<char, kRelayChunk> scratch{};
        std::uint64_t swallowed = 0;
        while (!ec && swallowed <= session_->config.max_request_bytes) {
            swallowed += co_await client_.async_read_some(asio::buffer(scratch), with(ec));
        }
    }

    void finish(Exchange& exchange)
    {
        exchange.record.duration_usec = usec_since(exchange.start);
        auto& counters = session_->counters;
        ++counters.requests;
        counters.bytes_in += exchange.record.bytes_in;
        counters.bytes_out += exchange.record.bytes_out;
        sys::write_log(core::gateway_request_record(session_->config, exchange.record));
    }

    awaitable<void> respond(http::response<http::string_body>& response, Exchange& exchange)
    {
        response.prepare_payload();
        beast::error_code ec;
        exchange.record.status = response.result_int();
        exchange.record.bytes_out += co_await http::async_write(client_, response, with(ec));
        finish(exchange);
    }

    // Coroutine parameters are taken by value: GCC 12 destroys a temporary
    // bound to a reference parameter inside a co_await expression twice
    // (GCC bug 100611), which is a double free for a std::string.
    awaitable<void> refuse(Exchange& exchange, http::status status, std::string reason, std::string body,
                           bool keep_alive, std::uint64_t retry_after_sec = 0)
    {
        http::response<http::string_body> response{status, kHttp11};
        if (retry_after_sec > 0) {
            response.set(http::field::retry_after, std::to_string(retry_after_sec));
        }
        response.set(http::field::content_type, "text/plain; charset=utf-8");
        response.set("X-Native-Runtime-Refused", reason);
        response.keep_alive(keep_alive);
        response.body() = body + "\n";
        exchange.record.refused = reason;
        co_await respond(response, exchange);
    }

    // Resolves `name` and keeps only the addresses this session may reach.
    awaitable<std::vector<tcp::endpoint>> resolve(core::HostPort where, std::string& problem)
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

    awaitable<bool> handle(http::request<http::string_body> request, beast::flat_buffer& buffer, Exchange& exchange)
    {
        const auto route = core::decide_route(session_->config.egress, std::string(request.method_string()),
                                              std::string(request.target()), session_->port);
        if (const auto* refusal = std::get_if<core::RouteRefuse>(&route)) {
            exchange.record.host = refusal->host;
            const bool connect = request.method() == http::verb::connect;
            co_await refuse(exchange, http::status::forbidden, refusal->reason, core::refusal_message(*refusal),
                            !connect && request.keep_alive());
            co_return !connect && request.keep_alive();
        }
        const auto* tunnel = std::get_if<core::RouteTunnel>(&route);
        exchange.record.host =
            tunnel != nullptr ? core::sanitize_host(tunnel->host) : std::get<core::RouteForward>(route).host;
        // Only what the gateway would relay counts against the owner's
        // budget: a refused destination costs nothing upstream.
        const auto& config = session_->config;
        const auto budget = shared_.budget.admit(config.owner, config.request_budget,
                                                 config.budget_window_sec * kUsecPerSec, steady_now_usec());
        exchange.record.budget_used = budget.used;
        if (!budget.admitted) {
            const bool keep = request.method() != http::verb::connect && request.keep_alive();
            co_await refuse(exchange, http::status::too_many_requests, "budget",
                            "native-runtime gateway: owner " + config.owner + " has used its " +
                                std::to_string(config.request_budget) + " requests of the last " +
                                std::to_string(config.budget_window_sec) + " s; retry in " +
                                std::to_string(budget.retry_after_sec) + " s",
                            keep, budget.retry_after_sec);
            co_return keep;
        }
        if (tunnel != nullptr) {
            core::HostPort where{tunnel->host, tunnel->port};
            co_await relay_tunnel(std::move(where), buffer, exchange);
            co_return false;
        }
        const auto& forward = std::get<core::RouteForward>(route);
        co_return co_await forward_request(forward, std::move(request), exchange);
    }

    awaitable<bool> forward_request(const core::RouteForward& forward, http::request<http::string_body> request,
                                    Exchange& exchange)
    {
        const auto& provider = *forward.provider;
        const bool keep_alive = request.keep_alive();
        const auto presented = request[provider.header];
        if (!core::token_matches(provider, std::string_view(presented.data(), presented.size()),
                                 session_->config.token)) {
            co_await refuse(exchange, http::status::forbidden, "token",
                            "native-runtime gateway: this session's token is required", keep_alive);
            co_return keep_alive;
        }
        const auto* key = shared_.credentials.key(provider.credential);
        if (key == nullptr) {
            co_await refuse(exchange, http::status::bad_gateway, "credential",
                            "native-runtime gateway: the gateway has no credential " + provider.credential, keep_alive);
            co_return keep_alive;
        }
        const auto connection_value = request[http::field::connection];
        for (const auto& name :
             core::hop_by_hop_headers(std::string_view(connection_value.data(), connection_value.size()))) {
            request.erase(name);
        }
        request.set(provider.header, core::provider_header_value(provider, *key));
        request.set(http::field::host, forward.host);
        request.target(forward.target);
        request.version(kHttp11);
        // The upstream connection may serve this client connection's next
        // request to the same host; it is never shared with another client
        // connection, let alone another session.
        request.keep_alive(true);
        request.prepare_payload();

        std::optional<http::response_parser<http::buffer_body>> parser;
        beast::flat_buffer buffer;
        std::string problem;
        std::string reason = "upstream";
        // A kept connection the upstream has closed meanwhile fails before
        // any answer: then, and only then, the request goes once more on a
        // new connection (the upstream has seen none of it).
        for (int attempt = 0; attempt < 2; ++attempt) {
            const bool reused = tls_upstream_.has_value() && upstream_host_ == forward.host;
            if (!reused) {
                close_upstream();
                problem = co_await open_upstream(forward.host, reason);
                if (!problem.empty()) {
                    break;
                }
            }
            parser.emplace();
            parser->header_limit(header_limit());
            parser->body_limit(session_->config.max_response_bytes);
            buffer.clear();
            auto& lowest = beast::get_lowest_layer(*tls_upstream_);
            beast::error_code ec;
            lowest.expires_after(kUpstreamReadTimeout);
            co_await http::async_write(*tls_upstream_, request, with(ec));
            if (!ec) {
                co_await http::async_read_header(*tls_upstream_, buffer, *parser, with(ec));
            }
            if (!ec) {
                problem.clear();
                break;
            }
            close_upstream();
            reason = "upstream";
            problem = "no answer from " + core::sanitize_host(forward.host) + ": " + ec.message();
            if (!reused) {
                break;
            }
        }
        if (!problem.empty()) {
            co_await refuse(exchange, http::status::bad_gateway, reason, "native-runtime gateway: " + problem,
                            keep_alive);
            co_return keep_alive;
        }
        co_return co_await relay_response(*parser, buffer, keep_alive, exchange);
    }

    void close_upstream()
    {
        if (tls_upstream_) {
            beast::error_code ignored;
            beast::get_lowest_layer(*tls_upstream_).socket().close(ignored);
            tls_upstream_.reset();
        }
        upstream_host_.clear();
    }

    // Resolves, connects and verifies `host`'s certificate; empty or the
    // problem, with `reason` the refusal's kind.
    awaitable<std::string> open_upstream(std::string host, std::string& reason)
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
            set_nodelay(lowest.socket());
            co_await upstream.async_handshake(ssl::stream_base::client, with(ec));
        }
        if (ec) {
            close_upstream();
            co_return "cannot reach " + core::sanitize_host(host) + ": " + ec.message();
        }
        upstream_host_ = host;
        co_return std::string();
    }

    // Sends the upstream's answer, whose header `parser` has read, to the
    // client piece by piece as it arrives: a streamed (SSE) answer reaches
    // the session at the upstream's pace, and its size is bounded while it
    // flows. The upstream connection is kept only after a whole answer
    // the upstream itself framed and offered to keep.
    awaitable<bool> relay_response(http::response_parser<http::buffer_body>& parser, beast::flat_buffer& buffer,
                                   bool keep_alive, Exchange& exchange)
    {
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
        // Without a length or chunking the body ends with the connection,
        // so the client's connection has to end with it too.
        const bool framed = response.has_content_length() || response.chunked();
        const bool client_keep = keep_alive && framed;
        response.keep_alive(client_keep);
        exchange.record.status = response.result_int();
        http::response_serializer<http::buffer_body> serializer{response};
        std::array<char, kRelayChunk> chunk{};
        for (;;) {
            if (!parser.is_done()) {
                response.body().data = chunk.data();
                response.body().size = chunk.size();
                lowest.expires_after(kUpstreamReadTimeout);
                co_await http::async_read_some(upstream, buffer, parser, with(ec));
                if (ec == http::error::need_buffer) {
                    ec = {};
                }
                if (ec == http::error::body_limit) {
                    sys::write_log(core::log_record(core::LogEvent::GatewayRequest,
                                                    "gateway cut an answer over max_response_bytes from " +
                                                        exchange.record.host + " for " + session_->config.unit));
                    exchange.record.refused = "response-too-large";
                    cut();
                    finish(exchange);
                    co_return false;
                }
                if (ec) {
                    cut();
                    finish(exchange);
                    co_return false;
                }
                const auto filled = chunk.size() - response.body().size;
                response.body().size = filled;
                response.body().data = filled == 0 ? nullptr : chunk.data();
                response.body().more = !parser.is_done();
            } else {
                response.body().data = nullptr;
                response.body().size = 0;
                response.body().more = false;
            }
            exchange.record.bytes_out += co_await http::async_write(client_, serializer, with(ec));
            if (ec == http::error::need_buffer) {
                ec = {};
            }
            if (ec) {
                cut();
                finish(exchange);
                co_return false;
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

    awaitable<void> relay_tunnel(core::HostPort where, beast::flat_buffer& buffer, Exchange& exchange)
    {
        std::string problem;
        const auto endpoints = co_await resolve(where, problem);
        if (endpoints.empty()) {
            co_await refuse(exchange, http::status::bad_gateway, "destination", "native-runtime gateway: " + problem,
                            false);
            co_return;
        }
        beast::error_code ec;
        co_await asio::async_connect(upstream_socket_, endpoints, with(ec));
        if (ec) {
            co_await refuse(
                exchange, http::status::bad_gateway, "upstream",
                "native-runtime gateway: cannot reach " + core::sanitize_host(where.name) + ": " + ec.message(), false);
            co_return;
        }
        set_nodelay(upstream_socket_);
        client_.expires_never();
        static constexpr std::string_view kEstablished = "HTTP/1.1 200 Connection established\r\n\r\n";
        exchange.record.status = 200;
        exchange.record.bytes_out += co_await asio::async_write(client_.socket(), asio::buffer(kEstablished), with(ec));
        if (!ec && buffer.size() > 0) {
            // Bytes the client sent right behind its CONNECT.
            exchange.record.bytes_in += co_await asio::async_write(upstream_socket_, buffer.data(), with(ec));
            buffer.consume(buffer.size());
        }
        if (ec) {
            cut();
            finish(exchange);
            co_return;
        }
        // The upstream's direction runs beside this one; the record is
        // written when both have ended.
        upstream_pump_running_ = true;
        tunnel_done_.expires_at(asio::steady_timer::time_point::max());
        asio::co_spawn(shared_.io, pump_upstream(), asio::detached);
        co_await pump(client_.socket(), upstream_socket_, exchange.record.bytes_in);
        if (upstream_pump_running_) {
            co_await tunnel_done_.async_wait(with(ec));
        }
        exchange.record.bytes_out += tunnel_bytes_out_;
        finish(exchange);
    }

    awaitable<void> pump_upstream()
    {
        co_await pump(upstream_socket_, client_.socket(), tunnel_bytes_out_);
        upstream_pump_running_ = false;
        tunnel_done_.cancel();
    }

    // One direction of a tunnel. At the source's end of stream the sink
    // gets a half-close; on an error both sides close.
    awaitable<void> pump(tcp::socket& from, tcp::socket& to, std::uint64_t& counted)
    {
        const auto self = shared_from_this();
        std::array<char, kRelayChunk> chunk{};
        for (;;) {
            beast::error_code ec;
            const auto n = co_await from.async_read_some(asio::buffer(chunk), with(ec));
            if (ec == asio::error::eof) {
                beast::error_code ignored;
                to.shutdown(tcp::socket::shutdown_send, ignored);
                co_return;
            }
            if (!ec) {
                co_await asio::async_write(to, asio::buffer(chunk.data(), n), with(ec));
            }
            if (ec) {
                cut();
                co_return;
            }
            counted += n;
        }
    }

    Shared& shared_;
    std::shared_ptr<Session> session_;
    beast::tcp_stream client_;
    tcp::socket upstream_socket_;
    std::optional<beast::ssl_stream<beast::tcp_stream>> tls_upstream_;
    std::string upstream_host_; // what tls_upstream_ is connected to, kept between requests
    asio::steady_timer tunnel_done_;
    bool upstream_pump_running_ = false;
    std::uint64_t tunnel_bytes_out_ = 0;
};

awaitable<void> serve_connection(std::shared_ptr<Connection> connection)
{
    co_await connection->serve();
}

awaitable<void> accept_loop(Shared& shared, std::shared_ptr<Session> session)
{
    while (!session->revoked) {
        beast::error_code ec;
        auto socket = co_await session->acceptor.async_accept(with(ec));
        if (session->revoked || ec == asio::error::operation_aborted || ec == asio::error::bad_descriptor) {
            co_return;
        }
        if (ec) {
            continue; // ECONNABORTED and the like: the next client
        }
        auto connection = std::make_shared<Connection>(shared, session, std::move(socket));
        session->connections.remove_if([](const auto& weak) { return weak.expired(); });
        session->connections.push_back(connection);
        asio::co_spawn(shared.io, serve_connection(std::move(connection)), asio::detached);
    }
}

// `stored_as`: the name of a session restored from systemd's descriptor
// store, where it already is.
std::string register_session(Shared& shared, const core::GatewaySession& config, sys::UniqueFd listener,
                             const std::string& stored_as = {})
{
    if (!listener.valid()) {
        return "a registration needs exactly one listener";
    }
    if (auto problem = listener_problem(listener.get()); !problem.empty()) {
        return problem;
    }
    if (shared.sessions.count(config.unit) != 0) {
        return "unit already registered";
    }
    auto session = std::make_shared<Session>(shared.io, config);
    beast::error_code ec;
    session->acceptor.assign(tcp::v4(), listener.get(), ec);
    if (ec) {
        return "cannot adopt the listener: " + ec.message();
    }
    session->stored_as = stored_as;
    listener.release();
    session->port = session->acceptor.local_endpoint(ec).port();
    shared.sessions.emplace(config.unit, session);
    asio::co_spawn(shared.io, accept_loop(shared, session), asio::detached);
    return {};
}

std::string revoke_session(Shared& shared, const std::string& unit)
{
    const auto it = shared.sessions.find(unit);
    if (it == shared.sessions.end()) {
        return "unit not registered";
    }
    auto session = it->second;
    shared.sessions.erase(it);
    session->revoked = true;
    forget_session(session->stored_as);
    beast::error_code ignored;
    session->acceptor.close(ignored);
    for (const auto& weak : session->connections) {
        if (const auto connection = weak.lock()) {
            connection->cut();
        }
    }
    sys::write_log(core::gateway_revoke_record(session->config, session->counters));
    return {};
}

// Puts the session's listener and the helper's registration into systemd's
// descriptor store; a session that cannot be kept there is served all the
// same, and only a restart of the gateway would lose it.
void keep_across_restart(Session& session, const std::string& registration)
{
    const int listener = session.acceptor.native_handle();
    const auto name = stored_name(listener);
    try {
        if (store_session(name, listener, registration)) {
            session.stored_as = name;
        }
    } catch (const std::exception& e) {
        std::cerr << "native-runtime-gateway: cannot keep " << session.config.unit << " across a restart: " << e.what()
                  << '\n';
    }
}

std::string handle_control(Shared& shared, ControlDatagram datagram)
{
    if (!datagram.error.empty()) {
        return datagram.error;
    }
    core::GatewayControl control;
    try {
        control = core::decode_gateway_control(datagram.message);
    } catch (const std::exception& e) {
        return e.what();
    }
    if (control.kind == core::GatewayControl::Kind::Revoke) {
        if (datagram.descriptor.valid()) {
            return "a revocation carries no descriptor";
        }
        return revoke_session(shared, control.session.unit);
    }
    auto problem = register_session(shared, control.session, std::move(datagram.descriptor));
    if (problem.empty()) {
        keep_across_restart(*shared.sessions.at(control.session.unit), datagram.message);
    }
    return problem;
}

std::string one_line(std::string text)
{
    for (auto& c : text) {
        if (c == '\n' || c == '\r') {
            c = ' ';
        }
    }
    return text;
}

awaitable<void> control_peer(Shared& shared, sys::UniqueFd fd)
{
    asio::posix::stream_descriptor peer(shared.io, fd.release());
    for (;;) {
        beast::error_code ec;
        co_await peer.async_wait(asio::posix::descriptor_base::wait_read, with(ec));
        if (ec) {
            co_return;
        }
        auto datagram = receive_datagram(peer.native_handle());
        if (datagram.again) {
            continue;
        }
        if (datagram.closed) {
            co_return;
        }
        const auto problem = handle_control(shared, std::move(datagram));
        send_reply(peer.native_handle(), problem.empty() ? "ok\n" : "error " + one_line(problem) + "\n");
    }
}

awaitable<void> control_loop(Shared& shared, sys::UniqueFd control)
{
    asio::posix::stream_descriptor listener(shared.io, control.release());
    // A connection that is gone again by the time accept4 runs must not
    // block the one thread every session depends on.
    listener.non_blocking(true);
    for (;;) {
        beast::error_code ec;
        co_await listener.async_wait(asio::posix::descriptor_base::wait_read, with(ec));
        if (ec) {
            co_return;
        }
        sys::UniqueFd peer(accept4(listener.native_handle(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
        if (!peer.valid()) {
            continue;
        }
        if (!peer_is_root(peer.get())) {
            continue; // closed unanswered: only root may register sessions
        }
        asio::co_spawn(shared.io, control_peer(shared, std::move(peer)), asio::detached);
    }
}

} // namespace

void run_server(sys::UniqueFd control, std::vector<StoredSession> restored, const ServerOptions& options)
{
    asio::io_context io(1);
    Shared shared{io,
                  ssl::context(ssl::context::tls_client),
                  CredentialStore(options.credentials_dir, options.credential_prefix),
                  {},
                  {}};
    shared.tls.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                           ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    if (options.upstream_ca.empty()) {
        shared.tls.set_default_verify_paths();
    } else {
        // Only this CA: a test's upstream must not be trusted through the
        // system store, nor the system store through a test's CA.
        shared.tls.load_verify_file(options.upstream_ca);
    }
    asio::signal_set signals(io, SIGTERM, SIGINT);
    signals.async_wait([&io](const beast::error_code&, int) { io.stop(); });
    // Before the control socket is read: a revocation the helper sent
    // while the gateway restarted waits there for the session it names.
    for (auto& stored : restored) {
        std::string problem;
        try {
            const auto control_message = core::decode_gateway_control(stored.registration);
            problem = control_message.kind == core::GatewayControl::Kind::Register
                          ? register_session(shared, control_message.session, std::move(stored.listener), stored.name)
                          : "not a registration";
            if (problem.empty()) {
                std::cerr << "native-runtime-gateway: serving " << control_message.session.unit
                          << " again after a restart\n";
            }
        } catch (const std::exception& e) {
            problem = e.what();
        }
        if (!problem.empty()) {
            std::cerr << "native-runtime-gateway: dropped stored session " << stored.name << ": " << problem << '\n';
            forget_session(stored.name);
        }
    }
    std::cerr << "native-runtime-gateway: ready, " << shared.sessions.size()
              << " session(s) restored from systemd's descriptor store" << std::endl;
    asio::co_spawn(io, control_loop(shared, std::move(control)), asio::detached);
    io.run();
}

} // namespace nr::gateway
