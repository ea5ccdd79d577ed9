// SPDX-License-Identifier: Apache-2.0
// The real agent clients, installed from npm by scripts/install-test-clients,
// run as sessions through the bus, systemd and bwrap as the unprivileged
// worker. Only --version, --help and the clients' own local tooling run: no
// model call is made and no credential is involved.

#include "fixture.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

using namespace nr::itest;

namespace {

constexpr const char* kClients = "/opt/native-runtime-test-clients";
constexpr const char* kOwner = "realclients";

// The "version" field of the installed package's package.json: what the
// client must report about itself.
std::string installed_version(const std::string& client, const std::string& package)
{
    const auto manifest = std::string(kClients) + "/" + client + "/node_modules/" + package + "/package.json";
    std::ifstream in(manifest);
    std::stringstream text;
    text << in.rdbuf();
    std::smatch match;
    const auto content = text.str();
    if (!std::regex_search(content, match, std::regex(R"re("version"\s*:\s*"([^"]+)")re"))) {
        return {};
    }
    return match[1].str();
}

Outcome in_session(const std::string& chat, const std::string& adapter, const std::vector<std::string>& command)
{
    return run(as_user(kWorker, ctl_run(kOwner, chat, adapter, command)));
}

} // namespace

TEST(RealClients, CodexReportsTheInstalledPackageVersionFromInsideASession)
{
    const auto version = installed_version("codex", "@openai/codex");
    ASSERT_FALSE(version.empty()) << "scripts/install-test-clients did not install @openai/codex";
    const auto outcome = in_session("codex-version", "codex", {"codex", "--version"});
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(outcome.out, "codex-cli " + version + "\n") << outcome.err;
}

TEST(RealClients, CodexHelpFromInsideASessionListsItsCommandsAndFlags)
{
    const auto outcome = in_session("codex-help", "codex", {"codex", "--help"});
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_TRUE(contains(outcome.out, "Usage: codex [OPTIONS] [PROMPT]")) << outcome.out;
    EXPECT_TRUE(contains(outcome.out, "  exec ")) << outcome.out;
    EXPECT_TRUE(contains(outcome.out, "  sandbox ")) << outcome.out;
    EXPECT_TRUE(contains(outcome.out, "--config <key=value>")) << outcome.out;
}

TEST(RealClients, ClaudeCodeReportsTheInstalledPackageVersionFromInsideASession)
{
    const auto version = installed_version("claude", "@anthropic-ai/claude-code");
    ASSERT_FALSE(version.empty()) << "scripts/install-test-clients did not install @anthropic-ai/claude-code";
    const auto outcome = in_session("claude-version", "claude", {"claude", "--version"});
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(outcome.out, version + " (Claude Code)\n") << outcome.err;
}

TEST(RealClients, ClaudeCodeHelpFromInsideASessionListsItsFlags)
{
    const auto outcome = in_session("claude-help", "claude", {"claude", "--help"});
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_TRUE(contains(outcome.out, "Usage: claude [options] [command] [prompt]")) << outcome.out;
    EXPECT_TRUE(contains(outcome.out, "-p, --print")) << outcome.out;
    EXPECT_TRUE(contains(outcome.out, "--model <model>")) << outcome.out;
}

TEST(RealClients, CodexKeepsItsStartupStateInTheOwnersPrivateHomeNotTheWorkers)
{
    const auto outcome = in_session("codex-state", "codex", {"codex", "--version"});
    ASSERT_EQ(outcome.status, 0) << outcome.err;
    const std::string owner_home = std::string(kDataDir) + "/native-runtime/" + kOwner + "/home";
    // Codex creates its helper aliases under ~/.codex/tmp at every start.
    EXPECT_TRUE(std::filesystem::is_directory(owner_home + "/.codex/tmp/arg0-linux"));
    EXPECT_FALSE(std::filesystem::exists(std::string("/home/") + kWorker + "/.codex"));
}

// Codex runs model-proposed commands in its own bwrap sandbox; started
// directly here (`codex sandbox -- CMD`), no model is involved.
TEST(RealClients, CodexRunsACommandInItsOwnSandboxOnlyWhereTheProfileAllowsNestedUserNamespaces)
{
    const std::vector<std::string> command{"codex", "sandbox", "--", "/bin/echo", "inside the codex sandbox"};
    const auto nested = in_session("codex-sandbox", "codex", command);
    EXPECT_EQ(nested.status, 0) << nested.err;
    EXPECT_EQ(nested.out, "inside the codex sandbox\n") << nested.err;

    const auto flat = in_session("codex-sandbox-flat", "codex-no-userns", command);
    EXPECT_NE(flat.status, 0);
    EXPECT_EQ(flat.out, "");
    EXPECT_TRUE(contains(flat.err, "Creating new namespace failed")) << flat.err;
}
