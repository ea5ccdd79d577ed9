// SPDX-License-Identifier: Apache-2.0
// clang-format off
#include "gateway/asio_config.h"
// clang-format on
#include "gateway/connection.h"
#include "gateway/secure_buffer.h"

#include <boost/asio/ssl/host_name_verification.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <limits>
#include <sys/socket.h>

// The upstream side of a provider request: the one TLS connection a client
// connection keeps to the provider it last used, the head with the key
// written into it, and the final answer's header read from it.
namespace nr::gateway {

namespace ssl = asio::ssl;
using asio::awaitable;
using tcp = asio::ip::tcp;

namespace {

constexpr auto kConnectTimeout = std::chrono::seconds(30);
// Interim answers (100, 102, 103) the gateway reads past before the final one.
constexpr int kMaxInterimAnswers = 8;

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

// Written from what the gateway parsed, never relayed raw. The key goes
// into a TLS record only from locked memory: the store's, or the secure
// heap's copy the one-record path assembles and wipes after the write.
// Never several buffers in one write: given those, Beast's ssl_stream
// copies them into one heap buffer first, and that copy of the key would
// outlive the write (a core of the gateway showed it).
awaitable<beast::error_code> Connection::write_upstream_head(const core::UpstreamHead& head, std::string_view key,
                                                             std::string_view body, bool whole)
{
    beast::get_lowest_layer(*tls_upstream_).expires_after(kUpstreamReadTimeout);
    beast::error_code ec;
    const std::array<std::string_view, 4> pieces{head.before_key, key, head.after_key, body};
    std::size_t total = 0;
    for (const auto piece : pieces) {
        total += piece.size();
    }
    Reservation share(*session_, whole ? total : 0);
    SecureBuffer record(whole && share.granted() ? total : 0);
    if (whole && record.valid()) {
        auto* end = record.data();
        for (const auto piece : pieces) {
            end = std::copy(piece.begin(), piece.end(), end);
        }
        co_await asio::async_write(*tls_upstream_, asio::buffer(record.data(), total), with(ec));
        co_return ec;
    }
    for (const auto piece : pieces) {
        if (!ec && !piece.empty()) {
            co_await asio::async_write(*tls_upstream_, asio::buffer(piece.data(), piece.size()), with(ec));
        }
    }
    co_return ec;
}

// Interim answers are the gateway's business, not the client's: it has
// already said 100 Continue itself where it was asked to.
awaitable<beast::error_code> Connection::read_final_answer(std::optional<ResponseParser>& answer,
                                                           beast::flat_buffer& buffer, bool is_head)
{
    auto& lowest = beast::get_lowest_layer(*tls_upstream_);
    beast::error_code ec;
    buffer.clear();
    for (int interim = 0; interim <= kMaxInterimAnswers; ++interim) {
        answer.emplace();
        answer->header_limit(static_cast<std::uint32_t>(
            std::min<std::uint64_t>(header_limit(), std::numeric_limits<std::uint32_t>::max())));
        answer->body_limit(session_->config.max_response_bytes);
        if (is_head) {
            answer->skip(true);
        }
        lowest.expires_after(kUpstreamReadTimeout);
        co_await http::async_read_header(*tls_upstream_, buffer, *answer, with(ec));
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
    co_return ec;
}

} // namespace nr::gateway
