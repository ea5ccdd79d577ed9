// SPDX-License-Identifier: Apache-2.0
// The built native-runtime-gateway against a local HTTPS upstream
// (gateway_upstream.py, a certificate for "localhost" from a CA made here
// with the openssl CLI and trusted by the gateway through --upstream-ca
// only). Sessions are registered as the helper does: a listener on
// 127.0.0.1 passed over the SOCK_SEQPACKET control socket. Every refusal
// has a positive control: the same request shape that succeeds.
//
// Needs root (the gateway accepts control peers of uid 0 only), python3
// and openssl; curl for the tunnel.

#include "gateway_fixture.h"

#include <map>

using namespace nr::test::gateway;

namespace {

class AProviderRequest : public GatewayTest {};
class AWrongToken : public GatewayTest {};
class AHostNotOnTheAllowList : public GatewayTest {};
class AConnectRequest : public GatewayTest {};
class ARevokedSession : public GatewayTest {};
class AStreamedAnswer : public GatewayTest {};
class ARequestOverTheLimit : public GatewayTest {};
class ANameResolvingToLoopback : public GatewayTest {};
class ARegistration : public GatewayTest {};
class AnAnswerOverTheLimit : public GatewayTest {};
class AMissingCredential : public GatewayTest {};
class AControlPeerOtherThanRoot : public GatewayTest {};
class AKeptAliveClient : public GatewayTest {};
class ARequestBody : public GatewayTest {};

} // namespace

TEST_F(AProviderRequest, ReachesTheUpstreamWithTheRealKeyAndNeverTheToken)
{
    const auto port = provider_session("key-swap.service", 'a');
    const auto response = round_trip(port, get(provider_path("/json"), "key-swap", "Bearer " + token_of('a')));
    EXPECT_EQ(status_line(response), "HTTP/1.1 200 OK") << response;
    EXPECT_NE(body_of(response).find("\"ok\": true"), std::string::npos) << response;
    const auto seen = environment().seen("key-swap");
    ASSERT_EQ(seen.size(), 1U);
    EXPECT_EQ(seen[0]["path"], "/json");
    EXPECT_EQ(seen[0]["headers"]["authorization"], "Bearer " + kRealKey);
    EXPECT_EQ(seen[0]["headers"]["host"], environment().upstream_host());
    EXPECT_EQ(seen[0].dump().find(token_of('a')), std::string::npos);
    EXPECT_EQ(response.find(kRealKey), std::string::npos);
}

TEST_F(AProviderRequest, InAbsoluteFormForTheOwnListenerIsForwardedToo)
{
    const auto port = provider_session("absolute.service", 'b');
    const auto target = "http://127.0.0.1:" + std::to_string(port) + provider_path("/json");
    const auto response = round_trip(port, get(target, "absolute", "Bearer " + token_of('b')));
    EXPECT_EQ(status_line(response), "HTTP/1.1 200 OK") << response;
    EXPECT_EQ(environment().seen("absolute").size(), 1U);
}

TEST_F(AWrongToken, IsRefusedAndTheUpstreamSeesNothing)
{
    const auto port = provider_session("wrong-token.service", 'c');
    // Another session's token, none, and the right one (positive control).
    const auto foreign = round_trip(port, get(provider_path("/json"), "wrong-token-1", "Bearer " + token_of('a')));
    const auto missing = round_trip(port, get(provider_path("/json"), "wrong-token-2", ""));
    const auto right = round_trip(port, get(provider_path("/json"), "wrong-token-3", "Bearer " + token_of('c')));
    EXPECT_EQ(status_line(foreign), "HTTP/1.1 403 Forbidden") << foreign;
    EXPECT_EQ(body_of(foreign), "native-runtime gateway: this session's token is required\n");
    EXPECT_EQ(foreign.find(token_of('a')), std::string::npos);
    EXPECT_EQ(status_line(missing), "HTTP/1.1 403 Forbidden") << missing;
    EXPECT_EQ(status_line(right), "HTTP/1.1 200 OK") << right;
    EXPECT_TRUE(environment().seen("wrong-token-1").empty());
    EXPECT_TRUE(environment().seen("wrong-token-2").empty());
    EXPECT_EQ(environment().seen("wrong-token-3").size(), 1U);
}

TEST_F(AHostNotOnTheAllowList, IsRefusedWithAReason)
{
    const auto port = provider_session("not-listed.service", 'd');
    const auto response = round_trip(port, get("/evil.example/v1/x", "not-listed", "Bearer " + token_of('d')));
    EXPECT_EQ(status_line(response), "HTTP/1.1 403 Forbidden") << response;
    EXPECT_NE(response.find("X-Native-Runtime-Refused: not-a-provider"), std::string::npos) << response;
    EXPECT_EQ(body_of(response), "native-runtime gateway: evil.example is not on this session's allow-list\n");
    const auto plain = round_trip(port, get("http://example.org/", "not-listed-2", ""));
    EXPECT_EQ(status_line(plain), "HTTP/1.1 403 Forbidden") << plain;
    EXPECT_NE(plain.find("X-Native-Runtime-Refused: plain-http"), std::string::npos) << plain;
}

TEST_F(AConnectRequest, ToAnAllowListedHostIsTunnelledAndToAnyOtherRefused)
{
    const auto port = register_session(session("tunnel.service", 'e', false, true));
    const auto log = environment().tree().at("curl.log");
    const int rc = run({"curl", "-sS", "--max-time", "10", "-o", "/dev/null", "--proxy",
                        "http://127.0.0.1:" + std::to_string(port), "--cacert", environment().tree().at("ca.pem"), "-H",
                        "X-Test-Id: tunnel", "https://" + environment().upstream_host() + "/json"},
                       log);
    EXPECT_EQ(rc, 0) << environment().tree().read("curl.log");
    const auto seen = environment().seen("tunnel");
    ASSERT_EQ(seen.size(), 1U);
    EXPECT_EQ(seen[0]["headers"].count("authorization"), 0U);

    const auto refused = round_trip(port, "CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n");
    EXPECT_EQ(status_line(refused), "HTTP/1.1 403 Forbidden") << refused;
    EXPECT_NE(refused.find("X-Native-Runtime-Refused: not-on-allow-list"), std::string::npos) << refused;
}

TEST_F(AConnectRequest, ToAProviderHostIsRefused)
{
    const auto port = provider_session("connect-provider.service", 'f');
    const auto host = environment().upstream_host();
    const auto refused = round_trip(port, "CONNECT " + host + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
    EXPECT_EQ(status_line(refused), "HTTP/1.1 403 Forbidden") << refused;
    EXPECT_NE(refused.find("X-Native-Runtime-Refused: provider-via-connect"), std::string::npos) << refused;
}

TEST_F(ARevokedSession, LosesItsListenerAndItsOpenConnections)
{
    const auto port = provider_session("revoked.service", '1');
    const auto open = connect_to(port);
    ASSERT_TRUE(open.valid());
    // Positive control: the kept-alive connection works before the revoke.
    send_all(open.get(), "GET " + provider_path("/json") + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                             token_of('1') + "\r\nX-Test-Id: revoked-1\r\n\r\n");
    std::array<char, 4096> buffer{};
    const auto first = recv(open.get(), buffer.data(), buffer.size(), 0);
    ASSERT_GT(first, 0);
    EXPECT_EQ(status_line(std::string(buffer.data(), static_cast<std::size_t>(first))), "HTTP/1.1 200 OK");

    EXPECT_EQ(control(nr::core::encode_gateway_revoke("revoked.service"), -1), "ok\n");

    EXPECT_FALSE(connect_to(port).valid()) << "the listener still accepts";
    pollfd p{open.get(), POLLIN, 0};
    ASSERT_EQ(poll(&p, 1, 5000), 1) << "the open connection was not cut";
    EXPECT_LE(recv(open.get(), buffer.data(), buffer.size(), 0), 0);
    EXPECT_EQ(control(nr::core::encode_gateway_revoke("revoked.service"), -1).rfind("error ", 0), 0U);
}

TEST_F(AStreamedAnswer, ArrivesEventByEvent)
{
    const auto port = provider_session("stream.service", '2');
    const auto fd = connect_to(port);
    ASSERT_TRUE(fd.valid());
    send_all(fd.get(), get(provider_path("/sse"), "stream", "Bearer " + token_of('2')));
    const auto done_marker = environment().tree().at("sse-done-stream");
    std::string received;
    bool first_before_last = false;
    std::array<char, 4096> buffer{};
    for (;;) {
        const auto n = recv(fd.get(), buffer.data(), buffer.size(), 0);
        if (n <= 0) {
            break;
        }
        received.append(buffer.data(), static_cast<std::size_t>(n));
        if (!first_before_last && received.find("data: event 0") != std::string::npos) {
            first_before_last = !fs::exists(done_marker);
        }
    }
    EXPECT_TRUE(first_before_last) << "the first event arrived only after the upstream had written the last";
    EXPECT_TRUE(fs::exists(done_marker));
    for (int i = 0; i < kSseEvents; ++i) {
        EXPECT_NE(received.find("data: event " + std::to_string(i) + "\n\n"), std::string::npos) << i;
    }
    EXPECT_NE(received.find("Transfer-Encoding: chunked"), std::string::npos) << received;
}

TEST_F(ARequestOverTheLimit, IsRefused)
{
    const auto port = provider_session("limit.service", '3');
    const auto post = [&](std::size_t size, const std::string& id) {
        return round_trip(port, "POST " + provider_path("/json") + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                                    token_of('3') + "\r\nX-Test-Id: " + id + "\r\nContent-Length: " +
                                    std::to_string(size) + "\r\nConnection: close\r\n\r\n" + std::string(size, 'z'));
    };
    const auto small = post(1000, "limit-small");
    const auto large = post(8000, "limit-large");
    EXPECT_EQ(status_line(small), "HTTP/1.1 200 OK") << small;
    EXPECT_NE(body_of(small).find("\"received\": 1000"), std::string::npos) << small;
    EXPECT_EQ(status_line(large), "HTTP/1.1 413 Payload Too Large") << large;
    EXPECT_TRUE(environment().seen("limit-large").empty());
}

TEST_F(ANameResolvingToLoopback, IsRefusedWithoutAnAllowance)
{
    const auto allowed = provider_session("loopback-allowed.service", '4');
    const auto denied = register_session(session("loopback-denied.service", '5', true, false));
    const auto control_response =
        round_trip(allowed, get(provider_path("/json"), "loopback-1", "Bearer " + token_of('4')));
    const auto response = round_trip(denied, get(provider_path("/json"), "loopback-2", "Bearer " + token_of('5')));
    EXPECT_EQ(status_line(control_response), "HTTP/1.1 200 OK") << control_response;
    EXPECT_EQ(status_line(response), "HTTP/1.1 502 Bad Gateway") << response;
    EXPECT_NE(response.find("X-Native-Runtime-Refused: destination"), std::string::npos) << response;
    EXPECT_TRUE(environment().seen("loopback-2").empty());
}

TEST_F(ARegistration, OfAUnitTwiceOrWithoutAListeningSocketIsRefused)
{
    const auto first = session("twice.service", '6', true, true);
    EXPECT_NE(register_session(first), 0);
    auto listener = make_listener();
    EXPECT_EQ(control(nr::core::encode_gateway_register(first), listener.fd.get()).rfind("error ", 0), 0U);

    const UniqueFd unbound(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    const auto other = session("not-listening.service", '7', true, true);
    EXPECT_EQ(control(nr::core::encode_gateway_register(other), unbound.get()).rfind("error ", 0), 0U);
    EXPECT_EQ(control(nr::core::encode_gateway_register(other), -1).rfind("error ", 0), 0U);
    EXPECT_TRUE(environment().gateway_alive()) << environment().tree().read("gateway.log");
}

TEST_F(AnAnswerOverTheLimit, IsCut)
{
    const auto port = provider_session("answer-limit.service", '8');
    const auto fetch = [&](std::size_t size, const std::string& id) {
        return round_trip(port, get(provider_path("/big?n=" + std::to_string(size)), id, "Bearer " + token_of('8')));
    };
    const auto small = fetch(1000, "answer-small");
    const auto large = fetch(3U << 20U, "answer-large");
    EXPECT_EQ(status_line(small), "HTTP/1.1 200 OK") << small.substr(0, 200);
    EXPECT_EQ(body_of(small), std::string(1000, 'x'));
    // The upstream was asked and began to answer; the session got less
    // than the whole answer and no more than the limit and a little framing.
    EXPECT_EQ(environment().seen("answer-large").size(), 1U);
    EXPECT_LT(body_of(large).size(), 3U << 20U);
    EXPECT_LE(large.size(), (1U << 20U) + 4096U);
}

TEST_F(AMissingCredential, IsNamedInA502AndTheUpstreamSeesNothing)
{
    auto absent = session("absent-key.service", '9', true, true);
    absent.egress.providers[0].credential = "absent-key";
    const auto port = register_session(absent);
    const auto response = round_trip(port, get(provider_path("/json"), "absent-key", "Bearer " + token_of('9')));
    EXPECT_EQ(status_line(response), "HTTP/1.1 502 Bad Gateway") << response;
    EXPECT_NE(body_of(response).find("absent-key"), std::string::npos) << response;
    EXPECT_TRUE(environment().seen("absent-key").empty());
    // Control: the same request shape with the stored credential passes.
    const auto control_port = provider_session("present-key.service", '0');
    const auto passed = round_trip(control_port, get(provider_path("/json"), "present-key", "Bearer " + token_of('0')));
    EXPECT_EQ(status_line(passed), "HTTP/1.1 200 OK") << passed;
}

TEST_F(AControlPeerOtherThanRoot, GetsNoAnswerAndRegistersNothing)
{
    const auto attempt = [](uid_t uid, const std::string& unit) {
        const pid_t child = fork();
        if (child == 0) {
            if (uid != 0 && (setgid(uid) != 0 || setuid(uid) != 0)) {
                _exit(3);
            }
            auto s = session(unit, 'f', true, true);
            auto listener = make_listener();
            const auto reply = control(nr::core::encode_gateway_register(s), listener.fd.get());
            // Closed unanswered: before the send (EPIPE) or after it.
            const bool closed = reply == "no reply" || reply.rfind("sendmsg: ", 0) == 0;
            _exit(reply == "ok\n" ? 0 : closed ? 1 : 2);
        }
        int status = 0;
        waitpid(child, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    };
    // The socket's mode keeps other users out already; opened up here so
    // that the gateway's own SO_PEERCRED check is what refuses.
    const auto path = environment().tree().at("control");
    ASSERT_EQ(chmod(path.c_str(), 0666), 0);
    ASSERT_EQ(chmod(environment().tree().path().c_str(), 0755), 0);
    const int nobody = attempt(65534, "nobody.service");
    chmod(path.c_str(), 0600);
    chmod(environment().tree().path().c_str(), 0700);
    EXPECT_EQ(nobody, 1) << "1: closed without an answer; 2: could not connect";
    EXPECT_EQ(attempt(0, "root.service"), 0); // control: the same message from root
    // Had nobody's registration gone through, the unit would now be known.
    EXPECT_EQ(control(nr::core::encode_gateway_revoke("nobody.service"), -1).rfind("error ", 0), 0U);
    EXPECT_EQ(control(nr::core::encode_gateway_revoke("root.service"), -1), "ok\n");
}

TEST_F(AKeptAliveClient, HasItsRequestsCarriedOnOneUpstreamConnection)
{
    const auto port = provider_session("kept.service", '6');
    const auto client = connect_to(port);
    ASSERT_TRUE(client.valid());
    for (const char* id : {"kept-1", "kept-2"}) {
        send_all(client.get(), kept_get(provider_path("/json"), id, "Bearer " + token_of('6')));
        EXPECT_EQ(status_line(read_one_response(client.get())), "HTTP/1.1 200 OK") << id;
    }
    const auto first = environment().seen("kept-1");
    const auto second = environment().seen("kept-2");
    ASSERT_EQ(first.size(), 1U);
    ASSERT_EQ(second.size(), 1U);
    EXPECT_EQ(first[0]["peer_port"], second[0]["peer_port"]) << "the upstream saw a second connection";
    // Control: requests on two client connections never share one.
    (void)round_trip(port, get(provider_path("/json"), "kept-3", "Bearer " + token_of('6')));
    (void)round_trip(port, get(provider_path("/json"), "kept-4", "Bearer " + token_of('6')));
    ASSERT_EQ(environment().seen("kept-3").size(), 1U);
    ASSERT_EQ(environment().seen("kept-4").size(), 1U);
    EXPECT_NE(environment().seen("kept-3")[0]["peer_port"], environment().seen("kept-4")[0]["peer_port"]);
}

TEST_F(AKeptAliveClient, GetsItsAnswerWhenTheUpstreamDroppedTheKeptConnection)
{
    const auto port = provider_session("dropped.service", '7');
    const auto client = connect_to(port);
    ASSERT_TRUE(client.valid());
    send_all(client.get(), kept_get(provider_path("/json?drop=1"), "dropped-1", "Bearer " + token_of('7')));
    EXPECT_EQ(status_line(read_one_response(client.get())), "HTTP/1.1 200 OK");
    // The upstream has closed the connection the gateway kept.
    send_all(client.get(), kept_get(provider_path("/json"), "dropped-2", "Bearer " + token_of('7')));
    const auto second = read_one_response(client.get());
    EXPECT_EQ(status_line(second), "HTTP/1.1 200 OK") << second;
    const auto first_seen = environment().seen("dropped-1");
    const auto second_seen = environment().seen("dropped-2");
    ASSERT_EQ(first_seen.size(), 1U);
    ASSERT_EQ(second_seen.size(), 1U) << "the retried request reached the upstream once";
    EXPECT_NE(first_seen[0]["peer_port"], second_seen[0]["peer_port"]);
}

namespace {

std::string kept_post(const std::string& target, const std::string& test_id, const std::string& authorization,
                      const std::string& body)
{
    return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test-Id: " + test_id +
           "\r\nAuthorization: " + authorization + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
           body;
}

std::string patterned(std::size_t size, char first)
{
    std::string body(size, ' ');
    for (std::size_t i = 0; i < size; ++i) {
        body[i] = static_cast<char>(first + static_cast<char>(i % 26));
    }
    return body;
}

} // namespace

// The gateway sends the part of a body that came with its header in the
// head's TLS record and the rest as it comes: every way a body can arrive
// has to reach the upstream byte for byte, and never take the next request.
TEST_F(ARequestBody, ReachesTheUpstreamWholeHoweverItArrives)
{
    auto larger = session("bodies.service", '8', true, true);
    larger.max_request_bytes = 64U << 10U;
    const auto port = register_session(larger);
    const auto client = connect_to(port);
    ASSERT_TRUE(client.valid());
    const auto authorization = "Bearer " + token_of('8');
    const auto target = provider_path("/json");
    const std::map<std::string, std::string> bodies{{"bodies-with-head", patterned(57, 'a')},
                                                    {"bodies-pipelined", patterned(300, 'A')},
                                                    {"bodies-split", patterned(4000, 'a')},
                                                    {"bodies-beyond-a-record", patterned(40000, 'A')}};
    // With its header, and the next request right behind it in the same write.
    send_all(client.get(), kept_post(target, "bodies-with-head", authorization, bodies.at("bodies-with-head")) +
                               kept_post(target, "bodies-pipelined", authorization, bodies.at("bodies-pipelined")));
    EXPECT_EQ(status_line(read_one_response(client.get())), "HTTP/1.1 200 OK");
    EXPECT_EQ(status_line(read_one_response(client.get())), "HTTP/1.1 200 OK");
    // Half with the header, the rest a moment later.
    const auto split = kept_post(target, "bodies-split", authorization, bodies.at("bodies-split"));
    const auto half = split.size() - bodies.at("bodies-split").size() / 2;
    send_all(client.get(), split.substr(0, half));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    send_all(client.get(), split.substr(half));
    EXPECT_EQ(status_line(read_one_response(client.get())), "HTTP/1.1 200 OK");
    // More than one record holds, in one write.
    send_all(client.get(),
             kept_post(target, "bodies-beyond-a-record", authorization, bodies.at("bodies-beyond-a-record")));
    EXPECT_EQ(status_line(read_one_response(client.get())), "HTTP/1.1 200 OK");
    for (const auto& [id, body] : bodies) {
        const auto seen = environment().seen(id);
        ASSERT_EQ(seen.size(), 1U) << id;
        EXPECT_EQ(seen[0]["body_length"], body.size()) << id;
        EXPECT_TRUE(seen[0]["body"] == body) << id;
        EXPECT_EQ(seen[0]["headers"]["authorization"], "Bearer " + kRealKey) << id;
    }
}
