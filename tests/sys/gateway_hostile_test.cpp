// SPDX-License-Identifier: Apache-2.0
// The built gateway against what a hostile session sends (issue 24): framing
// an upstream could read differently, methods and paths no provider API
// uses, endless chunk metadata, slow or idle clients, more connections and
// tunnels than a session may hold, and tunnels whose TLS names another
// host. Each refusal has its positive control: the well-formed request of
// the same shape goes through.

#include "dumpable_memory.h"
#include "gateway_fixture.h"

#include <algorithm>

using namespace nr::test::gateway;

namespace {

class ASessionsRequestFraming : public GatewayTest {};
class AMethodNoProviderApiUses : public GatewayTest {};
class APathWithAnEmptySegment : public GatewayTest {};
class AChunkedRequest : public GatewayTest {};
class AHeadRequest : public GatewayTest {};
class AnExpectContinueRequest : public GatewayTest {};
class AKeptUpstreamConnection : public GatewayTest {};
class ASlowClient : public GatewayTest {};
class AnIdleClient : public GatewayTest {};
class ASessionAtItsConnectionLimit : public GatewayTest {};
class ASessionAtItsTunnelLimit : public GatewayTest {};
class ATunnel : public GatewayTest {};
class TheGatewaysMemory : public GatewayTest {};

std::string header_value(const std::string& response, const std::string& name)
{
    const auto head = response.substr(0, response.find("\r\n\r\n"));
    const auto at = head.find("\r\n" + name + ": ");
    if (at == std::string::npos) {
        return "";
    }
    const auto start = at + name.size() + 4;
    return head.substr(start, head.find("\r\n", start) - start);
}

std::string bearer(char token)
{
    return "Bearer " + token_of(token);
}

// A POST whose framing lines and body are the caller's.
std::string post(const std::string& target, const std::string& test_id, char token, const std::string& framing,
                 const std::string& body)
{
    return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test-Id: " + test_id +
           "\r\nAuthorization: " + bearer(token) + "\r\nConnection: close\r\n" + framing + "\r\n" + body;
}

// True when the peer has closed `fd` (end of stream or reset) within a
// second; bytes it sent are dropped.
bool closed_by_peer(int fd)
{
    return answer_within(fd, std::chrono::seconds(1)).ends_with("<closed>");
}

// Sends up to `total` bytes of `piece` repeated until the peer stops
// reading or closes; what it could send.
std::uint64_t flood(int fd, const std::string& piece, std::uint64_t total)
{
    std::uint64_t sent = 0;
    timeval timeout{3, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    while (sent < total) {
        const auto n = send(fd, piece.data(), piece.size(), MSG_NOSIGNAL);
        if (n <= 0) {
            break;
        }
        sent += static_cast<std::uint64_t>(n);
    }
    return sent;
}

nr::core::GatewaySession limited(const std::string& unit, char token)
{
    auto s = session(unit, token, true, true);
    s.header_timeout_sec = 1;
    s.idle_timeout_sec = 1;
    s.max_connections = 4;
    s.max_tunnels = 2;
    return s;
}

// A CONNECT through the gateway, then a TLS handshake naming `sni`; what
// python's ssl module made of it.
std::string tunnel_handshake(std::uint16_t gateway_port, const std::string& connect_host, const std::string& sni)
{
    const auto script = "import socket,ssl,sys\n"
                        "s=socket.create_connection(('127.0.0.1'," +
                        std::to_string(gateway_port) +
                        "),timeout=10)\n"
                        "s.sendall(b'CONNECT " +
                        connect_host + " HTTP/1.1\\r\\nHost: " + connect_host +
                        "\\r\\n\\r\\n')\n"
                        "a=b''\n"
                        "while b'\\r\\n\\r\\n' not in a:\n"
                        "  p=s.recv(100)\n"
                        "  if not p: break\n"
                        "  a+=p\n"
                        "print('connect='+a.split(b'\\r\\n')[0].decode())\n"
                        "c=ssl.create_default_context(cafile='" +
                        environment().tree().at("ca.pem") +
                        "')\n"
                        "c.check_hostname=False\n"
                        "try:\n"
                        "  t=c.wrap_socket(s,server_hostname='" +
                        sni +
                        "')\n"
                        "  print('handshake=ok')\n"
                        "except Exception as e:\n"
                        "  print('handshake='+type(e).__name__)\n";
    const auto log = environment().tree().at("tunnel-" + sni + ".log");
    std::filesystem::remove(log);
    (void)run({"python3", "-c", script}, log);
    return environment().tree().read("tunnel-" + sni + ".log");
}

} // namespace

TEST_F(ASessionsRequestFraming, ThatAnUpstreamCouldReadDifferentlyIsRefusedBeforeTheUpstreamSeesIt)
{
    const auto port = provider_session("framing.service", 'f');
    const std::vector<std::pair<std::string, std::string>> cases{
        {"te-cl", "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"},
        {"te-list", "Transfer-Encoding: chunked, identity\r\nContent-Length: 5\r\n"},
        {"te-gzip", "Transfer-Encoding: gzip\r\n"},
        {"two-cl", "Content-Length: 5\r\nContent-Length: 5\r\n"},
        {"obs-fold", "Content-Length: 5\r\nX-Folded: a\r\n b\r\n"},
    };
    for (const auto& [name, framing] : cases) {
        const auto response = round_trip(port, post(provider_path("/json"), "framing-" + name, 'f', framing, "hello"));
        EXPECT_EQ(status_line(response), "HTTP/1.1 400 Bad Request") << name << ": " << response;
        EXPECT_EQ(header_value(response, "X-Native-Runtime-Refused"), "bad-framing") << name;
        EXPECT_TRUE(environment().seen("framing-" + name).empty()) << name << " reached the upstream";
    }
    // Control: a chunked body goes through, as chunked only, whole.
    const auto chunked =
        round_trip(port, post(provider_path("/json"), "framing-ok", 'f', "Transfer-Encoding: chunked\r\n",
                              "5\r\nhello\r\n3\r\nabc\r\n0\r\n\r\n"));
    EXPECT_EQ(status_line(chunked), "HTTP/1.1 200 OK") << chunked;
    const auto seen = environment().seen("framing-ok");
    ASSERT_EQ(seen.size(), 1U);
    EXPECT_EQ(seen[0]["framing"], nlohmann::json::parse(R"([["transfer-encoding","chunked"]])"));
    EXPECT_EQ(seen[0]["body_length"], 8);
    EXPECT_EQ(seen[0]["headers"]["authorization"], "Bearer " + kRealKey);
}

TEST_F(AMethodNoProviderApiUses, IsRefusedWith405AndNeverCarriesTheKey)
{
    const auto port = provider_session("trace.service", '1');
    const auto response =
        round_trip(port, "TRACE " + provider_path("/json") +
                             " HTTP/1.1\r\nHost: x\r\nX-Test-Id: trace\r\nAuthorization: " + bearer('1') +
                             "\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(status_line(response), "HTTP/1.1 405 Method Not Allowed") << response;
    EXPECT_EQ(header_value(response, "Allow"), "GET, POST, DELETE, HEAD");
    EXPECT_EQ(response.find(kRealKey), std::string::npos);
    EXPECT_TRUE(environment().seen("trace").empty());
    // Control: DELETE is a provider method.
    const auto deleted =
        round_trip(port, "DELETE " + provider_path("/json") +
                             " HTTP/1.1\r\nHost: x\r\nX-Test-Id: delete\r\nAuthorization: " + bearer('1') +
                             "\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(status_line(deleted), "HTTP/1.1 200 OK") << deleted;
    EXPECT_EQ(environment().seen("delete").size(), 1U);
}

TEST_F(APathWithAnEmptySegment, IsRefusedBeforeTheUpstreamSeesIt)
{
    const auto port = provider_session("slashes.service", '2');
    for (const char* rest : {"//evil.example/json", "/x/../json", "/%2e%2e/json"}) {
        const auto response = round_trip(port, get(provider_path(rest), "slashes", bearer('2')));
        EXPECT_EQ(status_line(response), "HTTP/1.1 400 Bad Request") << rest << ": " << response;
        EXPECT_EQ(header_value(response, "X-Native-Runtime-Refused"), "bad-path") << rest;
    }
    EXPECT_TRUE(environment().seen("slashes").empty());
    EXPECT_EQ(status_line(round_trip(port, get(provider_path("/json"), "slashes-ok", bearer('2')))), "HTTP/1.1 200 OK");
}

TEST_F(AChunkedRequest, WithAnEndlessChunkSizeLineIsCutAtItsLimit)
{
    const auto port = provider_session("endless-size.service", 'e');
    const auto client = connect_to(port);
    ASSERT_TRUE(client.valid());
    send_all(client.get(), post(provider_path("/json"), "endless-size", 'e', "Transfer-Encoding: chunked\r\n", "1;"));
    const auto sent = flood(client.get(), std::string(64U << 10U, 'a'), 64ULL << 20U);
    const auto response = read_to_end(client.get());
    EXPECT_EQ(status_line(response), "HTTP/1.1 400 Bad Request") << response;
    EXPECT_EQ(header_value(response, "X-Native-Runtime-Refused"), "bad-chunk") << response;
    EXPECT_LT(sent, 32ULL << 20U) << "the gateway kept reading chunk metadata";
    EXPECT_TRUE(environment().gateway_alive()) << environment().tree().read("gateway.log");
    EXPECT_TRUE(environment().seen("endless-size").empty()) << "the upstream got a whole request";
}

TEST_F(AChunkedRequest, WithAnEndlessTrailerIsCutAtItsLimit)
{
    const auto port = provider_session("endless-trailer.service", '3');
    const auto client = connect_to(port);
    ASSERT_TRUE(client.valid());
    send_all(client.get(),
             post(provider_path("/json"), "endless-trailer", '3', "Transfer-Encoding: chunked\r\n", "0\r\nX-T: "));
    const auto sent = flood(client.get(), std::string(64U << 10U, 'a'), 64ULL << 20U);
    const auto response = read_to_end(client.get());
    EXPECT_EQ(header_value(response, "X-Native-Runtime-Refused"), "bad-chunk") << response;
    EXPECT_LT(sent, 32ULL << 20U);
    EXPECT_TRUE(environment().gateway_alive()) << environment().tree().read("gateway.log");
    EXPECT_TRUE(environment().seen("endless-trailer").empty());
}

TEST_F(AChunkedRequest, WithoutTheTokenIsRefusedBeforeItsBodyIsRead)
{
    const auto port = provider_session("endless-notoken.service", '4');
    const auto client = connect_to(port);
    ASSERT_TRUE(client.valid());
    send_all(client.get(),
             post(provider_path("/json"), "endless-notoken", 'x', "Transfer-Encoding: chunked\r\n", "1;"));
    (void)flood(client.get(), std::string(64U << 10U, 'a'), 8ULL << 20U);
    const auto response = read_to_end(client.get());
    EXPECT_EQ(status_line(response), "HTTP/1.1 403 Forbidden") << response;
    EXPECT_EQ(header_value(response, "X-Native-Runtime-Refused"), "token");
}

TEST_F(AHeadRequest, IsAnsweredWithoutABodyAndTheNextRequestFollowsAtOnce)
{
    const auto port = provider_session("head.service", '5');
    const auto client = connect_to(port);
    ASSERT_TRUE(client.valid());
    const auto head = "HEAD " + provider_path("/json") +
                      " HTTP/1.1\r\nHost: x\r\nX-Test-Id: head\r\nAuthorization: " + bearer('5') + "\r\n\r\n";
    const auto start = std::chrono::steady_clock::now();
    send_all(client.get(), head + kept_get(provider_path("/json"), "head-then-get", bearer('5')));
    std::string answers;
    std::array<char, 4096> buffer{};
    while (answers.find("\"ok\": true") == std::string::npos) {
        const auto n = recv(client.get(), buffer.data(), buffer.size(), 0);
        if (n <= 0) {
            break;
        }
        answers.append(buffer.data(), static_cast<std::size_t>(n));
    }
    const auto waited = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(status_line(answers), "HTTP/1.1 200 OK") << answers;
    const auto second = answers.find("HTTP/1.1 200 OK", 4);
    ASSERT_NE(second, std::string::npos) << "the GET after the HEAD got no answer: " << answers;
    EXPECT_EQ(answers.substr(0, second).find("\r\n\r\n") + 4, second) << "the HEAD answer carried a body";
    EXPECT_LT(waited, std::chrono::seconds(5));
}

TEST_F(AnExpectContinueRequest, GetsTheGatewaysContinueThenTheUpstreamsAnswer)
{
    const auto port = provider_session("expect.service", '8');
    const auto client = connect_to(port);
    ASSERT_TRUE(client.valid());
    send_all(client.get(),
             post(provider_path("/json"), "expect", '8', "Expect: 100-continue\r\nContent-Length: 2\r\n", ""));
    std::array<char, 64> interim{};
    const auto n = recv(client.get(), interim.data(), interim.size(), 0);
    ASSERT_GT(n, 0);
    EXPECT_EQ(std::string(interim.data(), static_cast<std::size_t>(n)), "HTTP/1.1 100 Continue\r\n\r\n");
    send_all(client.get(), "{}");
    const auto response = read_to_end(client.get());
    EXPECT_EQ(status_line(response), "HTTP/1.1 200 OK") << response;
    const auto seen = environment().seen("expect");
    ASSERT_EQ(seen.size(), 1U);
    EXPECT_EQ(seen[0]["body_length"], 2);
    EXPECT_FALSE(seen[0]["headers"].contains("expect"));
}

TEST_F(AKeptUpstreamConnection, NeverCarriesARequestTwiceWhenItsAnswerFailed)
{
    const auto port = provider_session("once.service", '9');
    const auto client = connect_to(port);
    ASSERT_TRUE(client.valid());
    send_all(client.get(), kept_get(provider_path("/json"), "once-1", bearer('9')));
    EXPECT_EQ(status_line(read_one_response(client.get())), "HTTP/1.1 200 OK");
    // Larger than the session's max_response_bytes (1 MiB): the upstream
    // has acted on it, so it must not get it again on a new connection.
    send_all(client.get(), kept_get(provider_path("/big?n=2000000"), "once-2", bearer('9')));
    (void)read_to_end(client.get());
    EXPECT_EQ(environment().seen("once-2").size(), 1U);
}

TEST_F(ASlowClient, GetsA408WhenItsHeaderDoesNotArriveInTime)
{
    const auto port = register_session(limited("slow.service", '0'));
    const auto client = connect_to(port);
    ASSERT_TRUE(client.valid());
    send_all(client.get(), "GET " + provider_path("/json") + " HTTP/1.1\r\nHost: x\r\n");
    const auto response = read_to_end(client.get());
    EXPECT_EQ(status_line(response), "HTTP/1.1 408 Request Timeout") << response;
    EXPECT_EQ(header_value(response, "X-Native-Runtime-Refused"), "header-timeout");
}

TEST_F(ASlowClient, ThatSendsNothingOnANewConnectionGetsA408AfterTheHeaderTimeout)
{
    auto s = limited("silent.service", 'b');
    s.idle_timeout_sec = 30;
    const auto port = register_session(s);
    const auto client = connect_to(port);
    ASSERT_TRUE(client.valid());
    const auto start = std::chrono::steady_clock::now();
    const auto response = read_to_end(client.get());
    EXPECT_EQ(status_line(response), "HTTP/1.1 408 Request Timeout") << response;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << "the idle timeout applied instead";
}

TEST_F(AnIdleClient, IsClosedAfterTheIdleTimeoutAndNotBefore)
{
    const auto port = register_session(limited("idle.service", 'c'));
    const auto client = connect_to(port);
    ASSERT_TRUE(client.valid());
    send_all(client.get(), kept_get(provider_path("/json"), "idle", bearer('c')));
    EXPECT_EQ(status_line(read_one_response(client.get())), "HTTP/1.1 200 OK") << "control: the connection works";
    std::array<char, 16> buffer{};
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(recv(client.get(), buffer.data(), buffer.size(), 0), 0) << "the idle connection was not closed";
    const auto waited = std::chrono::steady_clock::now() - start;
    EXPECT_GE(waited, std::chrono::milliseconds(900));
    EXPECT_LT(waited, std::chrono::seconds(5));
}

TEST_F(ASessionAtItsConnectionLimit, HasEveryFurtherConnectionClosed)
{
    auto s = limited("many.service", 'd');
    s.idle_timeout_sec = 30;
    s.header_timeout_sec = 30;
    const auto port = register_session(s);
    std::vector<UniqueFd> clients;
    for (int i = 0; i < 8; ++i) {
        clients.push_back(connect_to(port));
        ASSERT_TRUE(clients.back().valid());
    }
    // Each is counted once the gateway has taken it from the listener's
    // queue (a loaded machine may leave some there for a while).
    ASSERT_TRUE(accept_queue(port)) << "no listener on port " << port << " in /proc/net/tcp";
    ASSERT_TRUE(eventually(std::chrono::seconds(20), [&] { return accept_queue(port) == 0U; }));
    std::size_t closed = 0;
    for (const auto& client : clients) {
        closed += closed_by_peer(client.get()) ? 1 : 0;
    }
    EXPECT_EQ(closed, 4U);
    // Control: a connection within the limit is served.
    std::size_t served = 0;
    for (const auto& client : clients) {
        send_all(client.get(), kept_get(provider_path("/json"), "many", bearer('d')));
        served += status_line(read_one_response(client.get())) == "HTTP/1.1 200 OK" ? 1 : 0;
    }
    EXPECT_EQ(served, 4U);
}

TEST_F(ASessionAtItsTunnelLimit, IsAnswered503ForTheNextTunnel)
{
    auto s = limited("tunnels.service", 'e');
    s.egress.providers.clear();
    s.header_timeout_sec = 5;
    const auto port = register_session(s);
    const auto connect = "CONNECT " + environment().upstream_host() + " HTTP/1.1\r\nHost: x\r\n\r\n";
    std::vector<UniqueFd> tunnels;
    for (int i = 0; i < 2; ++i) {
        tunnels.push_back(connect_to(port));
        send_all(tunnels.back().get(), connect);
        std::array<char, 128> answer{};
        const auto n = recv(tunnels.back().get(), answer.data(), answer.size(), 0);
        ASSERT_GT(n, 0);
        EXPECT_EQ(status_line(std::string(answer.data(), static_cast<std::size_t>(n))),
                  "HTTP/1.1 200 Connection established");
    }
    const auto third = round_trip(port, connect);
    EXPECT_EQ(status_line(third), "HTTP/1.1 503 Service Unavailable") << third;
    EXPECT_EQ(header_value(third, "X-Native-Runtime-Refused"), "tunnel-limit");
}

TEST_F(ATunnel, WhoseTlsNamesAnotherHostThanItsConnectIsClosed)
{
    auto s = session("fronting.service", 'a', false, true);
    const auto port = register_session(s);
    const auto other = tunnel_handshake(port, environment().upstream_host(), "elsewhere.example");
    EXPECT_NE(other.find("connect=HTTP/1.1 200"), std::string::npos) << other;
    EXPECT_EQ(other.find("handshake=ok"), std::string::npos) << other;
    // Control: the name the CONNECT named gets its handshake.
    const auto same = tunnel_handshake(port, environment().upstream_host(), "localhost");
    EXPECT_NE(same.find("handshake=ok"), std::string::npos) << same;
}

TEST_F(ATunnel, CannotBeOfferedOnAListenerBeyondLoopback)
{
    // A listener on every address would make the gateway a proxy for the
    // host's network: CONNECT needs no token.
    const UniqueFd wide(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    ASSERT_EQ(bind(wide.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(listen(wide.get(), 4), 0);
    const auto s = session("wide.service", 'f', false, true);
    EXPECT_EQ(control(nr::core::encode_gateway_register(s), wide.get()),
              "error the listener is not bound to 127.0.0.1\n");
    // Control: the same session on a loopback listener is registered.
    auto loopback = session("narrow.service", 'f', false, true);
    EXPECT_NE(register_session(loopback), 0);
}

TEST_F(TheGatewaysMemory, HoldsNoProviderKeyACoreDumpWouldShow)
{
    const auto port = provider_session("core.service", '7');
    const auto response = round_trip(port, get(provider_path("/json"), "core", bearer('7')));
    ASSERT_EQ(status_line(response), "HTTP/1.1 200 OK") << "control: the key was used: " << response;
    ASSERT_EQ(environment().seen("core").at(0)["headers"]["authorization"], "Bearer " + kRealKey);
    // The process made itself undumpable, but the test runs it as root, so
    // that alone proves nothing. The evidence is its memory as a core would
    // hold it: every readable mapping the kernel does not leave out of a core
    // (MADV_DONTDUMP, I/O mappings), read through /proc/PID/mem.
    const auto found = nr::test::search_dumpable_memory(environment().gateway_pid(), {token_of('7'), kRealKey});
    ASSERT_TRUE(found.readable) << found.why;
    EXPECT_GT(found.bytes_read, 1U << 20U);
    EXPECT_TRUE(found.seen.at(0)) << "control: the dumpable memory holds the heap, with the token";
    EXPECT_FALSE(found.seen.at(1)) << "the provider key is in the gateway's dumpable memory";
    EXPECT_TRUE(environment().gateway_alive());
}
