// SPDX-License-Identifier: Apache-2.0
#pragma once
// One client connection on a session's listener: its requests, each
// relayed to a provider (forward.cpp, over the connection upstream.cpp
// keeps) or tunnelled (tunnel.cpp), or refused by the gateway itself
// (connection.cpp). Everything a session
// sends is bounded before it is looked at: the header by max_header_bytes
// and header_timeout_sec, a body by max_request_bytes and only after the
// route and the token are checked, the bytes held by the session's
// max_buffered_bytes; a new connection's first header is due within
// header_timeout_sec of the accept, and silence between requests ends the
// connection after idle_timeout_sec.

#include "gateway/session.h"

#include "core/gateway/gateway_request.h"
#include "core/gateway/gateway_route.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace nr::gateway {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;

// The error into `ec` rather than an exception: every coroutine of the
// gateway answers its errors where they happen.
inline auto with(beast::error_code& ec)
{
    return asio::redirect_error(asio::use_awaitable, ec);
}

// Pieces a body, an answer or a tunnel is relayed in.
inline constexpr std::size_t kRelayChunk = 16U << 10U;
// How long an upstream may take to take a piece of a request or to send
// the next piece of its answer.
inline constexpr auto kUpstreamReadTimeout = std::chrono::minutes(5);

// The outcome of one request, for the journal and the counters.
struct Exchange {
    core::GatewayExchange record;
    Clock::time_point start = Clock::now();
};

using RequestParser = http::request_parser<http::buffer_body>;
using ResponseParser = http::response_parser<http::buffer_body>;

class Connection : public std::enable_shared_from_this<Connection> {
public:
    Connection(Shared& shared, std::shared_ptr<Session> session, boost::asio::ip::tcp::socket socket);
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    ~Connection();

    // Revocation or a fatal error: every socket of this connection closes;
    // pending operations end with operation_aborted and the coroutines unwind.
    void cut();

    boost::asio::awaitable<void> serve();

private:
    enum class HeadRead { Complete, Closed, TooLarge, TimedOut, NoMemory };

    // connection.cpp
    boost::asio::awaitable<HeadRead> read_head(std::size_t& head_size);
    boost::asio::awaitable<std::size_t> read_until(Clock::time_point deadline, boost::asio::mutable_buffer into,
                                                   boost::beast::error_code& ec, bool& timed_out);
    boost::asio::awaitable<void> refuse_head(HeadRead outcome, Exchange& exchange);
    boost::asio::awaitable<bool> parse_head(RequestParser& parser, std::size_t head_size, Exchange& exchange);
    boost::asio::awaitable<bool> handle(RequestParser& parser, std::size_t head_size);
    boost::asio::awaitable<void> refuse_route(const core::RouteRefuse& refusal, bool keep_alive, Exchange& exchange);
    boost::asio::awaitable<bool> admit_to_budget(bool keep_after_refusal, Exchange& exchange);
    boost::asio::awaitable<void> refuse(Exchange& exchange, unsigned status, std::string reason, std::string body,
                                        bool keep_alive, std::string extra_name = {}, std::string extra_value = {});
    boost::asio::awaitable<void> drain();
    void finish(Exchange& exchange);
    bool account_buffer();
    boost::asio::awaitable<std::vector<boost::asio::ip::tcp::endpoint>> resolve(core::HostPort where,
                                                                                std::string& problem);
    std::uint64_t header_limit() const;

    // forward.cpp
    boost::asio::awaitable<bool> forward_request(const core::RouteForward& forward, RequestParser& parser,
                                                 const core::RequestHead& head, const core::RequestFraming& framing,
                                                 Exchange& exchange);
    struct Forwarding;
    enum class Attempt { Answered, Failed, Again, Refused };
    boost::asio::awaitable<Attempt> attempt_forward(Forwarding& request, RequestParser& parser, Exchange& exchange);
    enum class BodyRelay { Done, TooLarge, BadChunk, ClientGone, UpstreamGone, NoMemory };
    boost::asio::awaitable<BodyRelay> relay_body(RequestParser& parser, const core::RequestFraming& framing,
                                                 Exchange& exchange);
    boost::asio::awaitable<boost::beast::error_code> write_body_piece(const char* data, std::size_t size, bool chunked);
    boost::asio::awaitable<void> refuse_body(BodyRelay relayed, const std::string& host, Exchange& exchange);
    bool take_held_body(RequestParser& parser, std::size_t count, Forwarding& request, Exchange& exchange);
    boost::asio::awaitable<bool> relay_response(ResponseParser& parser, boost::beast::flat_buffer& buffer,
                                                bool keep_alive, Exchange& exchange);
    boost::asio::awaitable<boost::beast::error_code>
    read_response_piece(ResponseParser& parser, boost::beast::flat_buffer& buffer, char* chunk);

    // upstream.cpp: the one upstream connection a client connection keeps
    boost::asio::awaitable<std::string> open_upstream(std::string host, std::string& reason);
    bool upstream_reusable(const std::string& host);
    void close_upstream();
    boost::asio::awaitable<boost::beast::error_code>
    write_upstream_head(const core::UpstreamHead& head, std::string_view key, std::string_view body, bool whole);
    boost::asio::awaitable<boost::beast::error_code> read_final_answer(std::optional<ResponseParser>& answer,
                                                                       boost::beast::flat_buffer& buffer, bool is_head);

    // tunnel.cpp
    boost::asio::awaitable<void> relay_tunnel(core::HostPort where, Exchange& exchange);
    boost::asio::awaitable<bool> connect_tunnel(core::HostPort where, Exchange& exchange);
    boost::asio::awaitable<bool> open_tunnel(std::string host, Exchange& exchange);
    boost::asio::awaitable<std::string> await_client_hello(const std::string& host);
    boost::asio::awaitable<void> pump(boost::asio::ip::tcp::socket& from, boost::asio::ip::tcp::socket& to, char* chunk,
                                      std::uint64_t& counted);
    boost::asio::awaitable<void> pump_upstream(char* chunk);
    boost::asio::awaitable<void> watch_idle_tunnel();

    Shared& shared_;
    std::shared_ptr<Session> session_;
    std::shared_ptr<HostLoad> host_load_;
    boost::beast::tcp_stream client_;
    // Everything read from the client and not yet parsed or relayed; its
    // limit bounds a header, a chunk-size line and a trailer.
    boost::beast::flat_buffer buffer_;
    Reservation buffer_share_;
    boost::asio::ip::tcp::socket upstream_socket_; // a tunnel's
    std::optional<boost::beast::ssl_stream<boost::beast::tcp_stream>> tls_upstream_;
    std::string upstream_host_; // what tls_upstream_ is connected to, kept between requests
    boost::asio::steady_timer tunnel_done_;
    boost::asio::steady_timer idle_watch_;
    bool upstream_pump_running_ = false;
    bool tunnel_open_ = false;
    std::uint64_t tunnel_bytes_out_ = 0;
    Clock::time_point last_activity_ = Clock::now();
    Clock::time_point accepted_at_ = Clock::now();
    bool first_request_ = true;
};

} // namespace nr::gateway
