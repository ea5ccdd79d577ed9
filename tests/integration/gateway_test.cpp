// SPDX-License-Identifier: Apache-2.0
// The egress gateway (network: gateway): a session's only way out is the
// listener its launcher made in the session's own network namespace, which
// native-runtime-gateway accepts on. The provider's real key lives only in
// the gateway's unit (a systemd credential); the session holds a placeholder
// token that works only on its own listener and only while it runs.
//
// The upstream is the scripted model endpoint speaking HTTPS on 127.0.0.1,
// with a certificate from a CA made here that only the gateway trusts (a
// drop-in for the gateway's unit, removed at the end), under names only the
// gateway's unit resolves (its own /etc/hosts, bound in by that drop-in).

#include "agent_clients.h"
#include "gateway_fixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

using namespace nr::itest;

namespace {

class AGatewaySession : public GatewayFixture {};

} // namespace

TEST_F(AGatewaySession, SendsTheRealKeyUpstreamInPlaceOfItsToken)
{
    const auto endpoint = upstream();
    const auto outcome = run(client_session("gwkey", {"provider", "/responses"}));
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    auto lines = parse_lines(outcome.out);
    EXPECT_EQ(lines.at("status"), "200") << outcome.out;
    const auto exchanges = endpoint->exchanges();
    EXPECT_TRUE(contains(exchanges, "\"authorized\": true")) << exchanges;
    EXPECT_FALSE(contains(exchanges, "\"authorized\": false")) << exchanges;
}

TEST_F(AGatewaySession, WithAWrongTokenIsRefusedBeforeTheUpstreamSeesIt)
{
    const auto endpoint = upstream();
    const auto wrong = run(client_session("gwwrong", {"provider", "/responses", random_hex(32)}));
    EXPECT_EQ(parse_lines(wrong.out)["status"], "403") << wrong.out << wrong.err;
    EXPECT_EQ(endpoint->exchanges(), "");
    // Control: the same session's own token goes through.
    const auto own = run(client_session("gwright", {"provider", "/responses"}));
    EXPECT_EQ(parse_lines(own.out)["status"], "200") << own.out << own.err;
}

TEST_F(AGatewaySession, HoldsNoTraceOfTheRealKey)
{
    const auto endpoint = upstream();
    const auto unit = unit_of("alice", "gwtrace");
    Background held(client_session("gwtrace", {"hold", "60"}));
    ASSERT_TRUE(eventually(60, [&] { return !session_env(unit, "OPENAI_API_KEY").empty(); })) << process_tree(unit);
    const auto token = session_env(unit, "OPENAI_API_KEY");
    const auto shown = run({"systemctl", "show", unit}).out;
    EXPECT_TRUE(contains(shown, "NATIVE_RUNTIME_OWNER=alice")) << "control: systemctl show lists the unit";
    EXPECT_FALSE(contains(shown, real_key_));
    EXPECT_FALSE(contains(shown, token)) << "the placeholder is not in the unit either";

    const auto found = run(client_session("gwfind", {"find", hex(real_key_), "OPENAI_API_KEY"}));
    auto lines = parse_lines(found.out);
    EXPECT_EQ(lines["key_found"], "none") << found.out << found.err;
    EXPECT_TRUE(contains(lines["token_found"], "/tmp/nr-gateway-token-control")) << "control: " << found.out;
    EXPECT_TRUE(contains(lines["token_found"], "/environ")) << "control: " << found.out;

    // The gateway's records name the session but hold neither value.
    (void)run(client_session("gwlog", {"provider", "/responses"}));
    const auto journal = run({"journalctl", "-b", "-q", "-o", "verbose", "--no-pager", "-u", kGatewayUnit}).out;
    EXPECT_TRUE(contains(journal, "NATIVE_RUNTIME_UNIT=" + unit_of("alice", "gwlog"))) << "control: " << journal;
    EXPECT_FALSE(contains(journal, real_key_));
    EXPECT_FALSE(contains(journal, token));
    EXPECT_EQ(run({kCtl, "stop", "--owner", "alice", "--chat", "gwtrace"}).status, 0);
    (void)held.wait();
}

TEST_F(AGatewaySession, TokenIsRefusedFromAnotherSessionAndAfterItsSessionEnded)
{
    const auto endpoint = upstream();
    const auto unit = unit_of("alice", "gwa");
    std::string token;
    {
        Background a(client_session("gwa", {"hold", "60"}));
        ASSERT_TRUE(eventually(60, [&] { return !(token = session_env(unit, "OPENAI_API_KEY")).empty(); }))
            << process_tree(unit);
        const auto from_b = run(client_session("gwb", {"provider", "/responses", token}));
        EXPECT_EQ(parse_lines(from_b.out)["status"], "403") << from_b.out << from_b.err;
        EXPECT_EQ(run({kCtl, "stop", "--owner", "alice", "--chat", "gwa"}).status, 0);
        (void)a.wait();
    }
    const auto after = run(client_session("gwc", {"provider", "/responses", token}));
    EXPECT_EQ(parse_lines(after.out)["status"], "403") << after.out << after.err;
    EXPECT_FALSE(contains(endpoint->exchanges(), "\"authorized\": true")) << "nothing reached the upstream";
    const auto journal = run({"journalctl", "-b", "-q", "-o", "verbose", "--no-pager", "-u", kGatewayUnit}).out;
    EXPECT_TRUE(contains(journal, "NATIVE_RUNTIME_UNIT=" + unit)) << journal;
}

TEST_F(AGatewaySession, ReachesAnAllowListedHostThroughATunnelAndNoOtherHost)
{
    const auto endpoint = upstream();
    const auto allowed = run(
        client_session("gwtun", {"connect-via-proxy", std::string(kTunnelName) + ":" + std::to_string(kUpstreamPort)}));
    EXPECT_EQ(parse_lines(allowed.out)["status"], "200") << allowed.out << allowed.err;
    EXPECT_EQ(parse_lines(allowed.out)["tls"], "ok") << allowed.out;
    const auto refused = run(client_session("gwnotlisted", {"connect-via-proxy", "example.com:443"}));
    auto lines = parse_lines(refused.out);
    EXPECT_EQ(lines["status"], "403") << refused.out << refused.err;
    EXPECT_EQ(lines["refused"], "not-on-allow-list") << refused.out;
    EXPECT_TRUE(contains(lines["reason"], "not on this session's allow-list")) << refused.out;
}

TEST_F(AGatewaySession, CannotConnectAroundTheGateway)
{
    const auto endpoint = upstream();
    const auto port = std::to_string(kUpstreamPort);
    // Control: from the host's side the upstream is there.
    EXPECT_EQ(probe_outside(kWorker, {"connect", "127.0.0.1", port})["connect"], "ok");
    const auto direct = run(client_session("gwdirect", {"connect", "127.0.0.1", port}));
    EXPECT_EQ(parse_lines(direct.out)["connect"], "ECONNREFUSED") << direct.out << direct.err;
    const auto other = run(client_session("gwother", {"connect", kGatewayAddress, port}));
    EXPECT_TRUE(refused(parse_lines(other.out)["connect"])) << other.out << other.err;
}

TEST_F(AGatewaySession, KeepsTheListenBan)
{
    const auto outcome = run(as_user(kWorker, ctl_run("alice", "gwlisten", "probe-gateway", {"nr-probe", "listen"})));
    EXPECT_EQ(parse_lines(outcome.out)["listen"], "EPERM") << outcome.out << outcome.err;
}

// --- The real clients ------------------------------------------------------

namespace {

std::string read_text(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The turn both clients run: write a file in the workspace, then read it.
ScriptedTurn gateway_turn(const std::string& who)
{
    return {"TURN-GATEWAY",
            {"echo made-through-the-gateway-by-" + who + " > gw-note.txt && cat gw-note.txt"},
            "gateway turn complete"};
}

void expect_gateway_turn(const std::string& who, const std::string& chat, const Outcome& outcome,
                         const ModelEndpoint& endpoint)
{
    EXPECT_EQ(outcome.status, 0) << outcome.err << endpoint.exchanges();
    EXPECT_TRUE(contains(outcome.out, "gateway turn complete")) << outcome.out << outcome.err;
    EXPECT_TRUE(contains(outcome.out, "made-through-the-gateway-by-" + who)) << outcome.out;
    EXPECT_EQ(read_text(workspace_of("alice", chat) + "/gw-note.txt"), "made-through-the-gateway-by-" + who + "\n");
    // Every request reached the upstream with the real key, which the
    // client never had: the worker passed it nothing.
    const auto log = endpoint.exchanges();
    EXPECT_TRUE(contains(log, "\"authorized\": true")) << log;
    EXPECT_FALSE(contains(log, "\"authorized\": false")) << log;
}

Outcome codex_through_gateway(const std::string& chat, const std::string& prompt)
{
    const std::string base_url =
        "http://127.0.0.1:8080/" + std::string(kUpstreamName) + ":" + std::to_string(kUpstreamPort) + "/v1";
    return run(
        as_user(kWorker,
                {kCtl,
                 "run",
                 "--owner",
                 "alice",
                 "--chat",
                 chat,
                 "--adapter",
                 "codex-gateway",
                 "--",
                 "codex",
                 "exec",
                 "--skip-git-repo-check",
                 "-c",
                 "model_provider=mock",
                 "-c",
                 "model_providers.mock={name=\"mock\",base_url=\"" + base_url +
                     "\",env_key=\"OPENAI_API_KEY\",wire_api=\"responses\",request_max_retries=0,stream_max_retries=0}",
                 "-c",
                 "sandbox_mode=\"workspace-write\"",
                 "-c",
                 "analytics.enabled=false",
                 "-c",
                 "features.plugins=false",
                 prompt}));
}

// Claude's own sandbox stays off, as in agent_turns_test.cpp (it cannot
// start in a session; docs/adapters.md).
Outcome claude_through_gateway(const std::string& chat, const std::string& prompt)
{
    return run(as_user(kWorker, {kCtl, "run", "--owner", "alice", "--chat", chat, "--adapter", "claude-gateway",
                                 "--env", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "--", "claude", "-p", prompt,
                                 "--allowedTools", "Bash", "--settings", R"({"sandbox":{"enabled":false}})"}));
}

void expect_exposure_closed(const std::string& client, const std::string& key, const Outcome& outcome,
                            const ModelEndpoint& endpoint)
{
    const bool exposed = contains(outcome.out, key) || contains(endpoint.exchanges(), key);
    std::cout << (exposed ? "KNOWN EXPOSURE: " : "CLOSED: ") << client
              << " through the egress gateway: a model-run tool in the session "
              << (exposed ? "read the real API key" : "found only the session's placeholder, not the real API key")
              << " (docs/security-model.md, \"Known exposure\")\n";
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_TRUE(contains(outcome.out, "environ-scan-done")) << "control: the scan ran: " << outcome.out;
    EXPECT_TRUE(contains(outcome.out, "_API_KEY=")) << "control: the scan found the variable: " << outcome.out;
    EXPECT_FALSE(exposed);
}

} // namespace

TEST_F(AGatewaySession, CarriesACodexTurnWithTheKeyOnlyInTheGateway)
{
    const auto endpoint = upstream();
    endpoint->script({gateway_turn("codex")});
    expect_gateway_turn("codex", "gwcodex", codex_through_gateway("gwcodex", "TURN-GATEWAY: run the command"),
                        *endpoint);
}

TEST_F(AGatewaySession, CarriesAClaudeCodeTurnWithTheKeyOnlyInTheGateway)
{
    const std::string dir = kGatewayTestDir;
    const ModelEndpoint endpoint(
        "anthropic", real_key_,
        EndpointListen{"127.0.0.1", kUpstreamPort, dir + "/upstream.pem", dir + "/upstream.key"});
    endpoint.script({gateway_turn("claude")});
    expect_gateway_turn("claude", "gwclaude", claude_through_gateway("gwclaude", "TURN-GATEWAY: run the command"),
                        endpoint);
}

TEST_F(AGatewaySession, ClosesTheKnownExposureForCodex)
{
    const auto endpoint = upstream();
    endpoint->script({credential_scan_turn()});
    expect_exposure_closed("codex", real_key_, codex_through_gateway("gwcodexscan", "TURN-CREDENTIAL please"),
                           *endpoint);
}

TEST_F(AGatewaySession, ClosesTheKnownExposureForClaudeCode)
{
    const std::string dir = kGatewayTestDir;
    const ModelEndpoint endpoint(
        "anthropic", real_key_,
        EndpointListen{"127.0.0.1", kUpstreamPort, dir + "/upstream.pem", dir + "/upstream.key"});
    endpoint.script({credential_scan_turn()});
    expect_exposure_closed("claude", real_key_, claude_through_gateway("gwclaudescan", "TURN-CREDENTIAL please"),
                           endpoint);
}

TEST_F(AGatewaySession, HasItsRequestsAndBytesCountedInStatusAndTheOwnersLogs)
{
    const auto endpoint = upstream();
    Background session(client_session("gwcount", {"providers", "3", "/responses", "60"}));
    nlohmann::json status;
    if (!eventually(60, [&] {
            status = status_json("alice", "gwcount");
            return gateway_count(status, "session", "requests") == 3;
        })) {
        // What the session's own run said is the first thing to read then.
        (void)run({kCtl, "stop", "--owner", "alice", "--chat", "gwcount"});
        const auto outcome = session.wait();
        FAIL() << "status " << status.dump() << "; the session's run ended " << outcome.status << ", out:\n"
               << outcome.out << "\nerr:\n"
               << outcome.err;
    }
    EXPECT_GT(gateway_count(status, "session", "bytes_in"), 0U) << status.dump();
    EXPECT_GT(gateway_count(status, "session", "bytes_out"), 0U) << status.dump();
    EXPECT_EQ(gateway_count(status, "session", "refused"), 0U) << status.dump();
    EXPECT_GE(gateway_count(status, "owner", "requests"), 3U) << "the owner's tally covers this session";
    EXPECT_TRUE(status["gateway"]["budget"].is_null()) << "alice has no budget: " << status.dump();
    const auto text = run({kCtl, "status", "--owner", "alice", "--chat", "gwcount"});
    EXPECT_TRUE(contains(text.out, "Gateway: 3 requests")) << text.out;
    const auto logs = run({kCtl, "logs", "--owner", "alice", "--chat", "gwcount"});
    EXPECT_TRUE(contains(logs.out, "native-runtime-gateway")) << logs.out;
    EXPECT_TRUE(contains(logs.out, "gateway POST upstream.nr-test:8443 -> 200")) << logs.out;

    // A user who may not read the system journal is told so, not shown 0.
    const auto unprivileged = run(as_user(kWorker, {kCtl, "status", "--owner", "alice", "--chat", "gwcount"}));
    EXPECT_EQ(unprivileged.status, 0) << unprivileged.err;
    EXPECT_TRUE(contains(unprivileged.out, "Gateway: - (its records are in the system journal")) << unprivileged.out;
    const auto unprivileged_json =
        run(as_user(kWorker, {kCtl, "status", "--owner", "alice", "--chat", "gwcount", "--json"}));
    EXPECT_TRUE(nlohmann::json::parse(unprivileged_json.out)["gateway"].is_null()) << unprivileged_json.out;
    EXPECT_EQ(run({kCtl, "stop", "--owner", "alice", "--chat", "gwcount"}).status, 0);
    (void)session.wait();
}

TEST_F(AGatewaySession, OverItsOwnersBudgetIsAnsweredWith429AndRetryAfter)
{
    const auto endpoint = upstream();
    Background budgeted(owners_client_session("budgeted", "gwbudget", {"providers", "3", "/responses", "60"}));
    nlohmann::json status;
    ASSERT_TRUE(eventually(60, [&] {
        status = status_json("budgeted", "gwbudget");
        return gateway_count(status, "session", "requests") == 3;
    })) << status.dump();
    EXPECT_EQ(gateway_count(status, "session", "refused"), 1U) << status.dump();
    ASSERT_TRUE(status["gateway"]["budget"].is_object()) << status.dump();
    EXPECT_EQ(status["gateway"]["budget"]["budget"], 2) << status.dump();
    EXPECT_EQ(status["gateway"]["budget"]["used"], 2) << status.dump();
    EXPECT_EQ(status["gateway"]["budget"]["window_sec"], 3600) << status.dump();
    const auto text = run({kCtl, "status", "--owner", "budgeted", "--chat", "gwbudget"});
    EXPECT_TRUE(contains(text.out, "Budget: 2 of 2 requests in 3600 s")) << text.out;
    EXPECT_EQ(run({kCtl, "stop", "--owner", "budgeted", "--chat", "gwbudget"}).status, 0);
    const auto outcome = budgeted.wait();
    auto lines = parse_lines(outcome.out);
    EXPECT_EQ(lines["statuses"], "200,200,429") << outcome.out << outcome.err;
    const auto retry_after = std::stoul(lines["retry_after"].empty() ? "0" : lines["retry_after"]);
    EXPECT_GE(retry_after, 1U) << outcome.out;
    EXPECT_LE(retry_after, 3600U) << outcome.out;
    const auto journal = run({"journalctl", "-b", "-q", "-o", "verbose", "--no-pager", "-u", kGatewayUnit,
                              "NATIVE_RUNTIME_OWNER=budgeted", "NATIVE_RUNTIME_GATEWAY_REFUSED=budget"})
                             .out;
    EXPECT_TRUE(contains(journal, "NATIVE_RUNTIME_GATEWAY_STATUS=429")) << journal;

    // Control: another owner, without a budget, is not held to it.
    const auto free = run(client_session("gwfree", {"providers", "3", "/responses"}));
    EXPECT_EQ(parse_lines(free.out)["statuses"], "200,200,200") << free.out << free.err;
}

TEST_F(AGatewaySession, KeepsItsWayOutAcrossARestartOfTheGateway)
{
    const auto endpoint = upstream();
    const auto unit = unit_of("alice", "gwrestart");
    Background session(client_session("gwrestart", {"repeat", "/responses", "200"}));
    std::string before;
    ASSERT_TRUE(eventually(60, [&] {
        before = gateway_main_pid();
        return before != "0" && contains(gateway_records(unit, before), "NATIVE_RUNTIME_GATEWAY_STATUS=200");
    })) << "control: the session's requests reach the upstream before the restart";

    ASSERT_EQ(run({"systemctl", "restart", kGatewayUnit}).status, 0);
    const auto after = gateway_main_pid();
    ASSERT_NE(after, before);
    EXPECT_TRUE(
        eventually(60, [&] { return contains(gateway_records(unit, after), "NATIVE_RUNTIME_GATEWAY_STATUS=200"); }))
        << "no request of the running session was relayed by the restarted gateway: " << gateway_messages(after);
    EXPECT_TRUE(contains(gateway_messages(after), "serving " + unit + " again after a restart"))
        << gateway_messages(after);
    EXPECT_TRUE(contains(gateway_messages(after), "ready, 1 session(s) restored")) << gateway_messages(after);

    // A revoked session is dropped from the store: the next restart does
    // not bring it back.
    EXPECT_EQ(run({kCtl, "stop", "--owner", "alice", "--chat", "gwrestart"}).status, 0);
    (void)session.wait();
    ASSERT_TRUE(eventually(30, [&] { return contains(gateway_messages(after), "gateway revoked " + unit); }))
        << gateway_messages(after);
    ASSERT_EQ(run({"systemctl", "restart", kGatewayUnit}).status, 0);
    const auto third = gateway_main_pid();
    ASSERT_TRUE(eventually(30, [&] { return contains(gateway_messages(third), "ready, "); }))
        << "control: the restarted gateway says when it has restored what it kept";
    EXPECT_FALSE(contains(gateway_messages(third), unit)) << gateway_messages(third);
}
