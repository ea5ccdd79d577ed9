// bench/gateway-eval/beast-api-check.cpp: compiles (never runs) every
// Boost.Beast/Asio/OpenSSL call that docs/egress-gateway-design.md names for
// the gateway, so the claim "the API exists in Debian 12's Boost 1.74 and
// Debian 13's 1.83" is checked by a compiler, with the project's warnings:
//
//   g++ -std=c++20 -Wall -Wextra -Werror -fsyntax-only beast-api-check.cpp
//
// Not product code and not built by CMake. Found by it: the chunk callbacks
// take beast::string_view, which is boost::string_view in 1.74 (not
// convertible from a std::string_view parameter) and boost::core::string_view
// in 1.83; code for both names beast::string_view.
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <openssl/ssl.h>

#include <chrono>
#include <cstdint>

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;

// The session side: a bounded request parser on a plain TCP stream.
void bounded_request(beast::tcp_stream& from_session, beast::flat_buffer& buffer)
{
    http::request_parser<http::string_body> parser;
    parser.header_limit(8 * 1024);
    parser.body_limit(std::uint64_t{1} << 20);
    from_session.expires_after(std::chrono::seconds(30));
    http::async_read(from_session, buffer, parser, [](beast::error_code, std::size_t) {});
}

// The upstream side: TLS with SNI and host-name verification, and a bounded
// response parser that hands over each chunk as it arrives.
void streamed_response(net::io_context& io, net::ssl::context& tls, beast::flat_buffer& buffer)
{
    tls.set_verify_mode(net::ssl::verify_peer);
    beast::ssl_stream<beast::tcp_stream> upstream(io, tls);
    upstream.set_verify_callback(net::ssl::host_name_verification("api.openai.com"));
    SSL_set_tlsext_host_name(upstream.native_handle(), "api.openai.com");

    http::response_parser<http::empty_body> parser;
    parser.header_limit(16 * 1024);
    parser.body_limit(std::uint64_t{64} << 20);
    auto on_header = [](std::uint64_t, beast::string_view, beast::error_code&) {};
    auto on_body = [](std::uint64_t, beast::string_view piece, beast::error_code&) { return piece.size(); };
    parser.on_chunk_header(on_header);
    parser.on_chunk_body(on_body);
    http::async_read_some(upstream, buffer, parser, [](beast::error_code, std::size_t) {});
}

// Relaying to the session without buffering: a buffer_body response written
// piece by piece through one serializer, `more` set until the last piece.
void relay_piece(beast::tcp_stream& to_session, http::response<http::buffer_body>& answer,
                 http::response_serializer<http::buffer_body>& serializer, char* data, std::size_t size, bool last)
{
    answer.body().data = data;
    answer.body().size = size;
    answer.body().more = !last;
    http::async_write_some(to_session, serializer, [](beast::error_code, std::size_t) {});
}

int main()
{
    net::io_context io;
    net::ssl::context tls(net::ssl::context::tls_client);
    beast::flat_buffer buffer;
    beast::tcp_stream session(io);
    bounded_request(session, buffer);
    streamed_response(io, tls, buffer);
    http::response<http::buffer_body> answer{http::status::ok, 11};
    answer.chunked(true);
    http::response_serializer<http::buffer_body> serializer(answer);
    char piece[] = "data: x\n\n";
    relay_piece(session, answer, serializer, piece, sizeof piece - 1, true);
    return 0;
}
