// SPDX-License-Identifier: Apache-2.0
// Real agent turns inside sessions. The real clients (Codex, Claude Code,
// installed from the lock files in tests/clients/) run as sessions started
// through the bus by the unprivileged worker and talk to a local model
// endpoint on the gateway address (model_endpoint.py), which replays scripted
// turns: the model asks for shell commands, the client runs them with its own
// tools, the endpoint quotes the tool results in its final message, and that
// message reaches the worker's stdout. No real model is called; the API keys
// are synthetic, and the endpoint refuses any request without them.
//
// Each test prints a transcript (what the endpoint was sent and answered,
// what the worker received), so the evidence is in the test log.

#include "agent_clients.h"
#include "fixture.h"
#include "model_endpoint.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <sys/stat.h>

using namespace nr::itest;

namespace {

constexpr const char* kWriteAndRead = "TURN-WRITE";

uid_t uid_of(const std::string& user)
{
    const auto out = run({"id", "-u", user}).out;
    return static_cast<uid_t>(std::stoul(out));
}

// The transcript of one turn, in the test log.
void transcript(const std::string& title, const ModelEndpoint& endpoint, const Outcome& outcome)
{
    std::cout << "---- TRANSCRIPT " << title << " ----\n"
              << "endpoint exchanges (request -> answer):\n"
              << endpoint.exchanges() << "worker exit status: " << outcome.status << "\n"
              << "worker stdout:\n"
              << outcome.out << "---- END TRANSCRIPT " << title << " ----\n";
}

// Every request the endpoint saw carried the synthetic key (and there was one).
void expect_all_authorized(const ModelEndpoint& endpoint)
{
    const auto log = endpoint.exchanges();
    EXPECT_TRUE(contains(log, "\"authorized\": true")) << log;
    EXPECT_FALSE(contains(log, "\"authorized\": false")) << log;
}

// --- Codex --------------------------------------------------------------

std::vector<std::string> codex_resume(const ModelEndpoint& endpoint, const std::string& id, const std::string& prompt)
{
    std::vector<std::string> argv{"codex", "exec", "resume", "--skip-git-repo-check"};
    const auto config = codex_config(endpoint);
    argv.insert(argv.end(), config.begin(), config.end());
    argv.push_back(id);
    argv.push_back(prompt);
    return argv;
}

Outcome codex_turn(const std::string& owner, const std::string& chat, const std::string& adapter,
                   const ModelEndpoint& endpoint, const std::vector<std::string>& command,
                   std::vector<std::string> extra_env = {})
{
    std::vector<std::string> argv{kCtl,    "run",   "--owner",        owner, "--chat", chat, "--adapter",
                                  adapter, "--env", "OPENAI_API_KEY", "--"};
    argv.insert(argv.end(), command.begin(), command.end());
    // The endpoint's key unless the test brings its own.
    if (std::none_of(extra_env.begin(), extra_env.end(),
                     [](const std::string& e) { return e.starts_with("OPENAI_API_KEY="); })) {
        extra_env.push_back("OPENAI_API_KEY=" + endpoint.key());
    }
    return run(as_user(kWorker, argv), with_env(extra_env));
}

// The id `codex exec` prints on stderr ("session id: ...").
std::string codex_session_id(const std::string& err)
{
    std::smatch match;
    if (std::regex_search(err, match, std::regex(R"(session id: ([0-9a-f-]+))"))) {
        return match[1].str();
    }
    return {};
}

// --- Claude Code ----------------------------------------------------------

constexpr const char* kClaudeSandboxOn =
    R"({"sandbox":{"enabled":true,"autoAllowBashIfSandboxed":true,"allowUnsandboxedCommands":false}})";

Outcome claude_turn(const std::string& owner, const std::string& chat, const ModelEndpoint& endpoint,
                    const std::vector<std::string>& command, std::vector<std::string> extra_env = {})
{
    std::vector<std::string> argv{kCtl,        "run",
                                  "--owner",   owner,
                                  "--chat",    chat,
                                  "--adapter", "claude",
                                  "--env",     "ANTHROPIC_API_KEY",
                                  "--env",     "ANTHROPIC_BASE_URL=" + endpoint.base_url(),
                                  "--env",     "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
                                  "--"};
    argv.insert(argv.end(), command.begin(), command.end());
    extra_env.push_back("ANTHROPIC_API_KEY=" + endpoint.key());
    return run(as_user(kWorker, argv), with_env(extra_env));
}

// The scripted write-and-read turn for a client named `who`.
ScriptedTurn write_and_read(const std::string& who)
{
    return {kWriteAndRead,
            {"echo made-by-" + who + " > agent-note.txt && id -un", "cat agent-note.txt"},
            "scripted turn complete"};
}

void expect_write_and_read(const std::string& who, const std::string& owner, const std::string& chat,
                           const Outcome& outcome)
{
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    const auto note = workspace_of(owner, chat) + "/agent-note.txt";
    EXPECT_EQ(read_file(note), "made-by-" + who + "\n") << outcome.err;
    struct stat st {};
    ASSERT_EQ(stat(note.c_str(), &st), 0) << note;
    EXPECT_EQ(st.st_uid, uid_of(kWorker)) << "the file belongs to the session user";
    // The final message quotes both tool results: the command ran as the
    // session user, and the file read back holds what the first wrote.
    EXPECT_TRUE(contains(outcome.out, "scripted turn complete")) << outcome.out;
    EXPECT_TRUE(std::regex_search(outcome.out, std::regex(R"(\[tool 1\] (exit=0 )?)" + std::string(kWorker))))
        << outcome.out;
    EXPECT_TRUE(std::regex_search(outcome.out, std::regex(R"(\[tool 2\] (exit=0 )?made-by-)" + who))) << outcome.out;
}

} // namespace

TEST(ACodexTurnInASession, RunsItsToolsInTheWorkspaceAndItsFinalMessageReachesTheWorker)
{
    const ModelEndpoint endpoint("openai", random_key("sk-synthetic-openai-"));
    endpoint.script({write_and_read("codex")});
    const auto outcome =
        codex_turn("turns", "codex-turn", "codex", endpoint, codex_exec(endpoint, std::string(kWriteAndRead) + " now"));
    transcript("codex exec write-and-read", endpoint, outcome);
    expect_write_and_read("codex", "turns", "codex-turn", outcome);
    expect_all_authorized(endpoint);
}

TEST(AClaudeCodeTurnInASession, RunsItsToolsInTheWorkspaceAndItsFinalMessageReachesTheWorker)
{
    const ModelEndpoint endpoint("anthropic", random_key("sk-ant-synthetic-"));
    endpoint.script({write_and_read("claude")});
    const auto outcome =
        claude_turn("turns", "claude-turn", endpoint, claude_print(std::string(kWriteAndRead) + " now"));
    transcript("claude -p write-and-read", endpoint, outcome);
    expect_write_and_read("claude", "turns", "claude-turn", outcome);
    expect_all_authorized(endpoint);
}

// --- Each client's own sandbox --------------------------------------------

namespace {

// Writes in the workspace (allowed by the client's sandbox) and in HOME
// (the owner's private home: writable for the session, so only the client's
// own sandbox can refuse it).
ScriptedTurn own_sandbox_turn()
{
    return {"TURN-SANDBOX",
            {"echo in-workspace > sandboxed.txt && echo workspace-write=ok; "
             "touch \"$HOME/escaped-own-sandbox.txt\" 2>&1; echo home-write=$?"},
            "sandbox turn complete"};
}

// Positive control: the session itself (no client sandbox) may write HOME.
void expect_session_may_write_home(const std::string& owner)
{
    const auto control = run(as_user(
        kWorker, ctl_run(owner, "home-control", "shell", {"sh", "-c", "touch \"$HOME/control.txt\" && echo wrote"})));
    EXPECT_EQ(control.out, "wrote\n") << control.err;
    EXPECT_TRUE(std::filesystem::exists(home_of(owner) + "/control.txt"));
}

void expect_home_write_refused_by_client_sandbox(const std::string& owner, const std::string& chat,
                                                 const Outcome& outcome)
{
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_TRUE(contains(outcome.out, "workspace-write=ok")) << outcome.out;
    EXPECT_EQ(read_file(workspace_of(owner, chat) + "/sandboxed.txt"), "in-workspace\n");
    EXPECT_TRUE(says_read_only_file_system(outcome.out)) << outcome.out;
    EXPECT_TRUE(contains(outcome.out, "home-write=1")) << outcome.out;
    EXPECT_FALSE(std::filesystem::exists(home_of(owner) + "/escaped-own-sandbox.txt"));
}

} // namespace

TEST(ACodexTurnInASession, RunsTheModelsCommandsInsideCodexsOwnSandbox)
{
    const ModelEndpoint endpoint("openai", random_key("sk-synthetic-openai-"));
    endpoint.script({own_sandbox_turn()});
    const auto outcome =
        codex_turn("sandboxes", "codex-own", "codex", endpoint, codex_exec(endpoint, "TURN-SANDBOX please"));
    transcript("codex exec own sandbox", endpoint, outcome);
    expect_home_write_refused_by_client_sandbox("sandboxes", "codex-own", outcome);
    expect_session_may_write_home("sandboxes");
}

TEST(ACodexTurnWithoutNestedUserNamespaces, FailsTheToolCallInsteadOfRunningItUnsandboxed)
{
    const ModelEndpoint endpoint("openai", random_key("sk-synthetic-openai-"));
    endpoint.script({write_and_read("codex")});
    const auto outcome = codex_turn("sandboxes", "codex-flat", "codex-no-userns", endpoint,
                                    codex_exec(endpoint, std::string(kWriteAndRead) + " now"));
    transcript("codex exec without nested user namespaces", endpoint, outcome);
    // The turn completes, but Codex's sandbox could not start, so neither
    // command ran, and the endpoint got the failures as tool results.
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_TRUE(contains(outcome.out, "scripted turn complete")) << outcome.out;
    EXPECT_TRUE(std::regex_search(outcome.out, std::regex(R"(\[tool 1\] exit=[1-9])"))) << outcome.out;
    EXPECT_TRUE(std::regex_search(outcome.out, std::regex(R"(\[tool 2\] exit=[1-9])"))) << outcome.out;
    EXPECT_FALSE(contains(outcome.out, "made-by-codex")) << outcome.out;
    EXPECT_FALSE(std::filesystem::exists(workspace_of("sandboxes", "codex-flat") + "/agent-note.txt"));
}

TEST(AClaudeCodeTurnInASession, CannotStartClaudesOwnSandboxBecauseSessionsRefuseListeningSockets)
{
    const ModelEndpoint endpoint("anthropic", random_key("sk-ant-synthetic-"));
    endpoint.script({own_sandbox_turn()});
    const auto outcome =
        claude_turn("sandboxes", "claude-own", endpoint, claude_print("TURN-SANDBOX please", {}, kClaudeSandboxOn));
    transcript("claude -p with its own sandbox enabled", endpoint, outcome);
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    // The endpoint got the failure as the tool result; the command never ran.
    EXPECT_TRUE(std::regex_search(endpoint.exchanges(),
                                  std::regex(R"(Sandbox is enabled but failed to initialize: EPERM[^"]*listen)")))
        << endpoint.exchanges();
    EXPECT_FALSE(std::filesystem::exists(workspace_of("sandboxes", "claude-own") + "/sandboxed.txt"));
    EXPECT_FALSE(contains(outcome.out, "workspace-write=ok")) << outcome.out;
}

TEST(ACodexTurnWithAWrongKey, IsRefusedByTheEndpointAndRunsNoTool)
{
    const ModelEndpoint endpoint("openai", random_key("sk-synthetic-openai-"));
    endpoint.script({write_and_read("codex")});
    const auto outcome =
        codex_turn("turns", "codex-badkey", "codex", endpoint,
                   codex_exec(endpoint, std::string(kWriteAndRead) + " now"), {"OPENAI_API_KEY=sk-synthetic-wrong"});
    transcript("codex exec with a wrong key", endpoint, outcome);
    EXPECT_NE(outcome.status, 0);
    EXPECT_TRUE(contains(outcome.err, "401 Unauthorized")) << outcome.err;
    EXPECT_TRUE(contains(endpoint.exchanges(), "\"authorized\": false"));
    EXPECT_FALSE(contains(endpoint.exchanges(), "\"authorized\": true"));
    EXPECT_FALSE(std::filesystem::exists(workspace_of("turns", "codex-badkey") + "/agent-note.txt"));
}

// --- The boundary holds for the agent's own tools ---------------------------

namespace {

constexpr const char* kAppState = "/var/lib/nr-app-data/app-state.txt";

// Another owner's file (fixture.cpp puts it there), the application's data
// and the worker's environment, which holds `canary`. Each must fail or find
// nothing inside the turn, and the endpoint must get that failure back.
ScriptedTurn boundary_turn(const std::string& canary)
{
    return {"TURN-BOUNDARY",
            {"cat " + std::string(kDataDir) + "/native-runtime/bob/home/secret.txt", std::string("cat ") + kAppState,
             "echo worker-environ-hits=$(grep -l -s -a " + canary +
                 " /proc/[0-9]*/environ | wc -l) visible-processes=$(ls -d /proc/[0-9]* | wc -l)"},
            "boundary turn complete"};
}

void expect_boundary_held(const ModelEndpoint& endpoint, const Outcome& outcome)
{
    // Positive controls: the targets exist on the host.
    EXPECT_EQ(read_file(std::string(kDataDir) + "/native-runtime/bob/home/secret.txt"), "bob-secret\n");
    EXPECT_EQ(read_file(kAppState), "app-state\n");
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    const auto log = endpoint.exchanges();
    // What the endpoint was sent back as tool results (the last request holds all three).
    EXPECT_TRUE(std::regex_search(log, std::regex(R"(cat: [^"]*bob/home/secret.txt: No such file or directory)")))
        << log;
    EXPECT_TRUE(std::regex_search(log, std::regex(R"(cat: [^"]*app-state.txt: No such file or directory)"))) << log;
    EXPECT_TRUE(contains(log, "worker-environ-hits=0")) << log;
    EXPECT_FALSE(contains(log, "bob-secret")) << log;
    EXPECT_FALSE(contains(log, "\"app-state")) << log;
    EXPECT_TRUE(contains(outcome.out, "boundary turn complete")) << outcome.out;
    EXPECT_TRUE(contains(outcome.out, "worker-environ-hits=0")) << outcome.out;
}

void put_app_state()
{
    const auto made = run(as_user(kWorker, {"sh", "-c", std::string("echo app-state > ") + kAppState}));
    ASSERT_EQ(made.status, 0) << made.err;
}

} // namespace

TEST(ACodexAgentsOwnTools, CannotReadAnotherOwnersFileTheAppDataOrTheWorkersEnvironment)
{
    put_app_state();
    const auto canary = random_key("worker-canary-");
    const ModelEndpoint endpoint("openai", random_key("sk-synthetic-openai-"));
    endpoint.script({boundary_turn(canary)});
    const auto outcome = codex_turn("alice", "codex-boundary", "codex", endpoint,
                                    codex_exec(endpoint, "TURN-BOUNDARY please"), {"WORKER_CANARY=" + canary});
    transcript("codex exec boundary", endpoint, outcome);
    expect_boundary_held(endpoint, outcome);
}

TEST(AClaudeCodeAgentsOwnTools, CannotReadAnotherOwnersFileTheAppDataOrTheWorkersEnvironment)
{
    put_app_state();
    const auto canary = random_key("worker-canary-");
    const ModelEndpoint endpoint("anthropic", random_key("sk-ant-synthetic-"));
    endpoint.script({boundary_turn(canary)});
    const auto outcome = claude_turn("alice", "claude-boundary", endpoint, claude_print("TURN-BOUNDARY please"),
                                     {"WORKER_CANARY=" + canary});
    transcript("claude -p boundary", endpoint, outcome);
    expect_boundary_held(endpoint, outcome);
}

// --- KNOWN EXPOSURE: the agent's own credential ----------------------------

namespace {

// Prints the classification line; the test asserts the exposure exists, so
// it fails (and must be updated) once a later change closes it.
void classify(const std::string& client, const std::string& key, const Outcome& outcome)
{
    const bool exposed = contains(outcome.out, key);
    std::cout << (exposed ? "KNOWN EXPOSURE: " : "CLOSED: ") << client
              << ": a model-run tool in the session read the agent's API key from /proc/<pid>/environ"
              << (exposed ? " (docs/security-model.md, \"Known exposure\")" : " no longer") << "\n";
    EXPECT_TRUE(contains(outcome.out, "environ-scan-done")) << "control: the scan ran: " << outcome.out;
    EXPECT_TRUE(exposed) << "the known exposure is gone for " << client
                         << ": update this test and docs/security-model.md";
}

} // namespace

TEST(AModelRunToolInACodexSession, ReadsTheAgentsOwnCredentialKnownExposure)
{
    const ModelEndpoint endpoint("openai", random_key("sk-synthetic-openai-"));
    endpoint.script({credential_scan_turn()});
    const auto outcome =
        codex_turn("alice", "codex-exposure", "codex", endpoint, codex_exec(endpoint, "TURN-CREDENTIAL please"));
    transcript("codex exec credential scan", endpoint, outcome);
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    classify("codex", endpoint.key(), outcome);
}

TEST(AModelRunToolInAClaudeCodeSession, ReadsTheAgentsOwnCredentialKnownExposure)
{
    const ModelEndpoint endpoint("anthropic", random_key("sk-ant-synthetic-"));
    endpoint.script({credential_scan_turn()});
    const auto outcome = claude_turn("alice", "claude-exposure", endpoint, claude_print("TURN-CREDENTIAL please"));
    transcript("claude -p credential scan", endpoint, outcome);
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    classify("claude", endpoint.key(), outcome);
}

// --- KNOWN EXPOSURE: a client's cached login in the owner's home ------------

namespace {

// What Codex (ChatGPT login) and Claude Code (claude.ai login on Linux)
// keep in the home, with `token` as the login's secret. The clients must be
// able to rewrite these files (token refresh), so they stay writable and
// readable for every process of the owner's sessions.
const std::vector<std::pair<std::string, std::string>> kCachedLogins{
    {".codex/auth.json", R"({"OPENAI_API_KEY":null,"tokens":{"access_token":"TOKEN","refresh_token":"TOKEN"}})"},
    {".claude/.credentials.json", R"({"claudeAiOauth":{"accessToken":"TOKEN","refreshToken":"TOKEN"}})"},
};

void plant_cached_logins(const std::string& owner, const std::string& token)
{
    for (const auto& [relative, text] : kCachedLogins) {
        const auto path = home_of(owner) + "/" + relative;
        const auto login = std::regex_replace(text, std::regex("TOKEN"), token);
        const auto made =
            run(as_user(kWorker, {"sh", "-c", "mkdir -p -m 0700 \"$(dirname \"$1\")\" && printf '%s' \"$2\" > \"$1\"",
                                  "sh", path, login}));
        ASSERT_EQ(made.status, 0) << made.err;
    }
}

void remove_cached_logins(const std::string& owner)
{
    for (const auto& login : kCachedLogins) {
        std::filesystem::remove(home_of(owner) + "/" + login.first);
    }
}

// `cat` of each cached login by the paths given, then a marker.
std::vector<std::string> read_logins_at(const std::vector<std::string>& paths)
{
    std::string script;
    for (const auto& path : paths) {
        script += "cat " + path + "; echo; ";
    }
    return {"sh", "-c", script + "echo login-scan-done"};
}

} // namespace

TEST(AToolInAnOwnersSession, ReadsTheClientsCachedLoginsInThatOwnersHomeKnownExposure)
{
    const std::string owner = "withlogin";
    const auto token = random_key("cached-login-");
    // A first session makes the owner's home as every session finds it.
    ASSERT_EQ(run(as_user(kWorker, ctl_run(owner, "home", "shell", {"sh", "-c", "true"}))).status, 0);
    plant_cached_logins(owner, token);

    const auto own =
        run(as_user(kWorker, ctl_run(owner, "logins", "shell",
                                     read_logins_at({"~/.codex/auth.json", "~/.claude/.credentials.json"}))));
    const bool exposed =
        contains(own.out, "\"access_token\":\"" + token) && contains(own.out, "\"accessToken\":\"" + token);
    std::cout << (exposed ? "KNOWN EXPOSURE: " : "CLOSED: ")
              << "cached logins: a tool in an owner's session read ~/.codex/auth.json and ~/.claude/.credentials.json "
                 "of that owner's home"
              << (exposed ? " (docs/security-model.md, \"Known exposure\")" : " no longer") << "\n";
    EXPECT_EQ(own.status, 0) << own.err;
    EXPECT_TRUE(contains(own.out, "login-scan-done")) << "control: the scan ran: " << own.out;
    EXPECT_TRUE(exposed) << "the known exposure of cached logins is gone: update this test and "
                            "docs/security-model.md\n"
                         << own.out << own.err;

    // Control: another owner's session, of the same worker and UID, finds
    // them neither in its own home nor at the first owner's path.
    const auto other = run(as_user(kWorker, ctl_run("nologin", "logins", "shell",
                                                    read_logins_at({"~/.codex/auth.json", "~/.claude/.credentials.json",
                                                                    home_of(owner) + "/.codex/auth.json",
                                                                    home_of(owner) + "/.claude/.credentials.json"}))));
    EXPECT_TRUE(contains(other.out, "login-scan-done")) << "control: the scan ran: " << other.out << other.err;
    EXPECT_FALSE(contains(other.out + other.err, token)) << other.out << other.err;
    EXPECT_TRUE(contains(other.err, "No such file or directory")) << other.err;
    remove_cached_logins(owner);
}

// --- Resume A -> B -> A --------------------------------------------------

namespace {

std::vector<ScriptedTurn> resume_script()
{
    return {{"TURN-A1", {"echo a1 > a.txt && echo wrote-a1"}, "first turn of A"},
            {"TURN-B1", {"echo b1 > b.txt && echo wrote-b1"}, "first turn of B"},
            {"TURN-A2", {"cat a.txt"}, "second turn of A"},
            {"TURN-B2", {}, "second turn of B"}};
}

} // namespace

TEST(ACodexConversation, ResumesInItsOwnSessionAfterAnotherOwnersTurnAndIsNotFoundByThatOwner)
{
    const ModelEndpoint endpoint("openai", random_key("sk-synthetic-openai-"));
    endpoint.script(resume_script());
    const auto a1 = codex_turn("alice", "codex-resume", "codex", endpoint, codex_exec(endpoint, "TURN-A1 start"));
    ASSERT_EQ(a1.status, 0) << a1.err;
    const auto id = codex_session_id(a1.err);
    ASSERT_FALSE(id.empty()) << a1.err;
    const auto b1 = codex_turn("bob", "codex-resume", "codex", endpoint, codex_exec(endpoint, "TURN-B1 start"));
    ASSERT_EQ(b1.status, 0) << b1.err;
    const auto a2 =
        codex_turn("alice", "codex-resume", "codex", endpoint, codex_resume(endpoint, id, "TURN-A2 continue"));
    const auto b2 =
        codex_turn("bob", "codex-resume", "codex", endpoint, codex_resume(endpoint, id, "TURN-B2 continue"));
    transcript("codex exec resume A->B->A (+ B tries A's id)", endpoint, a2);
    std::cout << "B1 stdout:\n"
              << b1.out << "B2 (resume A's id as bob) status " << b2.status << ", stderr:\n"
              << b2.err << "\n";

    EXPECT_TRUE(contains(a1.out, "conversation: TURN-A1\n")) << a1.out;
    EXPECT_TRUE(contains(b1.out, "conversation: TURN-B1\n")) << b1.out;
    EXPECT_EQ(a2.status, 0) << a2.err;
    EXPECT_TRUE(contains(a2.out, "second turn of A")) << a2.out;
    EXPECT_TRUE(contains(a2.out, "exit=0 a1")) << a2.out;
    EXPECT_TRUE(contains(a2.out, "conversation: TURN-A1 TURN-A2\n")) << a2.out;
    EXPECT_NE(b2.status, 0);
    EXPECT_TRUE(contains(b2.err, "no rollout found for thread id " + id)) << b2.err;
    EXPECT_FALSE(contains(b2.out, "TURN-A1")) << b2.out;
    EXPECT_FALSE(contains(endpoint.exchanges(), R"(["TURN-A1", "TURN-B2"])")) << "B never saw A's conversation";
}

TEST(AClaudeCodeConversation, ResumesInItsOwnSessionAfterAnotherOwnersTurnAndIsNotFoundByThatOwner)
{
    const ModelEndpoint endpoint("anthropic", random_key("sk-ant-synthetic-"));
    endpoint.script(resume_script());
    const std::string id_a = "6f1c2f4e-8a9b-4c3d-9e2f-0a1b2c3d4e5f";
    const std::string id_b = "7a2d3e5f-9b0c-4d4e-8f30-1b2c3d4e5f60";
    const auto a1 =
        claude_turn("alice", "claude-resume", endpoint, claude_print("TURN-A1 start", {"--session-id", id_a}));
    ASSERT_EQ(a1.status, 0) << a1.err;
    const auto b1 =
        claude_turn("bob", "claude-resume", endpoint, claude_print("TURN-B1 start", {"--session-id", id_b}));
    ASSERT_EQ(b1.status, 0) << b1.err;
    const auto a2 =
        claude_turn("alice", "claude-resume", endpoint, claude_print("TURN-A2 continue", {"--resume", id_a}));
    const auto b2 = claude_turn("bob", "claude-resume", endpoint, claude_print("TURN-B2 continue", {"--resume", id_a}));
    transcript("claude --resume A->B->A (+ B tries A's id)", endpoint, a2);
    std::cout << "B1 stdout:\n"
              << b1.out << "B2 (resume A's id as bob) status " << b2.status << ", stdout:\n"
              << b2.out << "stderr:\n"
              << b2.err << "\n";

    EXPECT_TRUE(contains(a1.out, "conversation: TURN-A1")) << a1.out;
    EXPECT_TRUE(contains(b1.out, "conversation: TURN-B1")) << b1.out;
    EXPECT_EQ(a2.status, 0) << a2.err;
    EXPECT_TRUE(contains(a2.out, "second turn of A")) << a2.out;
    EXPECT_TRUE(contains(a2.out, "[tool 1] a1")) << a2.out;
    EXPECT_TRUE(contains(a2.out, "conversation: TURN-A1 TURN-A2")) << a2.out;
    EXPECT_NE(b2.status, 0);
    EXPECT_TRUE(contains(b2.err, "No conversation found with session ID: " + id_a)) << b2.err;
    EXPECT_FALSE(contains(b2.out, "TURN-A1")) << b2.out;
    EXPECT_FALSE(contains(endpoint.exchanges(), R"(["TURN-A1", "TURN-B2"])")) << "B never saw A's conversation";
}

// --- ACP: a real ACP agent driven over the session's stdio ----------------

// Zed's codex-acp (from npm) runs in a session; the ACP client
// (acp_client.py, a small client of our own: the SDK is a TypeScript library
// and the harness drives everything else from Python or C++) runs on the
// worker side and speaks to it through `native-runtimectl run`'s stdin and
// stdout: initialize, session/new, a prompt with streamed session/update
// notifications, then a prompt cancelled at its first tool call.
TEST(AnAcpAgentInASession, InitializesPromptsStreamsUpdatesAndCancelsOverTheWorkersStdio)
{
    const ModelEndpoint endpoint("openai", random_key("sk-synthetic-openai-"));
    endpoint.script({write_and_read("acp"), {"TURN-SLOW", {"sleep 30; echo slept"}, "should not get here"}});
    std::vector<std::string> agent{"codex-acp"};
    const auto config = codex_config(endpoint);
    agent.insert(agent.end(), config.begin(), config.end());
    std::vector<std::string> argv{"/usr/bin/python3",
                                  NR_ACP_CLIENT,
                                  "--cwd",
                                  workspace_of("acp", "acp-turn"),
                                  "--prompt",
                                  std::string(kWriteAndRead) + " now",
                                  "--cancel-prompt",
                                  "TURN-SLOW now",
                                  "--"};
    const auto worker = as_user(kWorker, {kCtl, "run", "--owner", "acp", "--chat", "acp-turn", "--adapter", "codex-acp",
                                          "--env", "OPENAI_API_KEY", "--"});
    argv.insert(argv.end(), worker.begin(), worker.end());
    argv.insert(argv.end(), agent.begin(), agent.end());
    const auto outcome = run(argv, with_env({"OPENAI_API_KEY=" + endpoint.key()}));
    transcript("ACP (codex-acp) prompt and cancel", endpoint, outcome);
    std::cout << "acp client stderr:\n" << outcome.err << "\n";

    EXPECT_EQ(outcome.status, 0) << outcome.err;
    const auto steps = outcome.out;
    EXPECT_TRUE(contains(steps, "step=initialize protocol=1 error=False")) << steps;
    EXPECT_TRUE(contains(steps, "step=session/new ok=1")) << steps;
    EXPECT_TRUE(contains(steps, "step=prompt stop=end_turn")) << steps;
    EXPECT_TRUE(std::regex_search(steps, std::regex("kinds=[^\\n]*tool_call,[^\\n]*agent_message_chunk"))) << steps;
    EXPECT_TRUE(contains(steps, R"(\n[tool 1] exit=0 nrworker\n[tool 2] exit=0 made-by-acp\n)")) << steps;
    EXPECT_EQ(read_file(workspace_of("acp", "acp-turn") + "/agent-note.txt"), "made-by-acp\n");
    EXPECT_TRUE(contains(steps, "step=cancel sent=1 stop=cancelled")) << steps;
    // The cancelled command's result never reached the endpoint: one request
    // for that turn (the one that asked for the command), none after it.
    const auto log = endpoint.exchanges();
    std::size_t slow_requests = 0;
    for (auto at = log.find(R"("marker": "TURN-SLOW")"); at != std::string::npos;
         at = log.find(R"("marker": "TURN-SLOW")", at + 1)) {
        ++slow_requests;
    }
    EXPECT_EQ(slow_requests, 1U) << log;
    expect_all_authorized(endpoint);
    // When the client is done with it, nothing of the session stays.
    EXPECT_TRUE(eventually(30, [] {
        return run({"systemctl", "is-active", "--quiet", "native-runtime-acp-acp-turn.service"}).status != 0;
    }));
}
