// SPDX-License-Identifier: Apache-2.0
// The adapter profiles shipped in examples/adapters/ (documented in
// docs/adapters.md) must stay loadable by the real config parser and
// plannable, so an operator who pastes one under `adapters:` gets a working
// profile rather than a ConfigInvalid. A client that talks to a provider API
// goes through the egress gateway by default, with the provider entry the
// gateway tests run; its `-host` profile is the named alternative.

#include "core/base/path_policy.h"
#include "core/config/config.h"
#include "core/ops/provider_keys.h"
#include "core/plan/session_plan.h"
#include "test_paths.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace nr::core;
using ::testing::Contains;
using ::testing::Not;

namespace {

const std::filesystem::path kExamples = std::filesystem::path(NR_EXAMPLES_DIR) / "adapters";

// Everything a config needs besides its adapters, as in the
// docs/configuration.md example.
const std::string kBase = "data_dir: /var/lib/metis\n"
                          "callers:\n"
                          "  users: [metis-worker]\n"
                          "sandbox:\n"
                          "  read_only_paths: [/usr, /etc/ld.so.cache, /etc/passwd, /etc/ssl/certs]\n"
                          "  hidden_paths: [/var/lib/metis-secrets, /home]\n"
                          "adapters:\n";

std::string read_text(const std::filesystem::path& file)
{
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The profile as an operator pastes it: every line indented under `adapters:`.
std::string config_with(const std::string& profile_text)
{
    std::string config = kBase;
    std::istringstream lines(profile_text);
    for (std::string line; std::getline(lines, line);) {
        config += line.empty() ? "\n" : "  " + line + "\n";
    }
    return config;
}

std::vector<std::filesystem::path> shipped_profiles()
{
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(kExamples)) {
        if (entry.path().extension() == ".yaml") {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

bool has_pair(const std::vector<std::string>& argv, const std::string& flag, const std::string& path)
{
    for (std::size_t i = 0; i + 2 < argv.size(); ++i) {
        if (argv[i] == flag && argv[i + 1] == path && argv[i + 2] == path) {
            return true;
        }
    }
    return false;
}

const std::string kGatewayToken(64, 'a');

std::string basename_of(const std::string& path)
{
    return path.substr(path.rfind('/') + 1);
}

} // namespace

TEST(TheShippedAdapterExamples, CoverEveryClientTheRuntimeSupportsAndGitForTheApplication)
{
    std::set<std::string> names;
    for (const auto& file : shipped_profiles()) {
        names.insert(file.stem().string());
    }
    EXPECT_EQ(names, (std::set<std::string>{"acp", "antigravity", "claude", "codex", "cursor", "git"}));
}

TEST(EachShippedAdapterExample, ParsesAsTheProfileItsFileIsNamedAfterAndItsHostAlternative)
{
    for (const auto& file : shipped_profiles()) {
        SCOPED_TRACE(file.string());
        const auto config = parse_config(config_with(read_text(file)), file.string());
        const auto name = file.stem().string();
        EXPECT_TRUE(config.adapters.contains(name));
        for (const auto& [other, profile] : config.adapters) {
            EXPECT_TRUE(other == name || other == name + "-host") << other;
        }
    }
}

TEST(EachShippedAdapterProfile, GrantsItsOwnExecutableReadOnly)
{
    for (const auto& file : shipped_profiles()) {
        const auto config = parse_config(config_with(read_text(file)), file.string());
        for (const auto& [name, profile] : config.adapters) {
            SCOPED_TRACE(file.string() + ": " + name);
            EXPECT_TRUE(
                std::any_of(profile.read_only_paths.begin(), profile.read_only_paths.end(),
                            [&](const std::string& grant) { return path_is_within(profile.executable, grant); }))
                << profile.executable << " is outside the profile's read_only_paths, so bwrap could not exec it";
        }
    }
}

namespace {

void expect_plannable(const Config& config, const std::string& name, const AdapterProfile& profile)
{
    SessionRequest request;
    request.owner = "alice";
    request.chat = "c1";
    request.adapter = name;
    request.argv = {basename_of(profile.executable), "--version"};
    const auto plan = plan_session(config, request, RunAsUser{"metis-worker", 990, 990},
                                   HostFacts{"/usr/libexec/native-runtime/native-runtime-launch", {}, {}}, "token",
                                   profile.network == NetworkMode::Gateway ? kGatewayToken : std::string());
    const auto& argv = plan.launch.bwrap_argv;
    for (const auto& grant : profile.read_only_paths) {
        EXPECT_TRUE(has_pair(argv, "--ro-bind", grant)) << grant;
    }
    for (const auto& path_template : profile.session_dirs) {
        const auto dir = expand_owner_template(path_template, "alice");
        EXPECT_NE(dir.find("/alice"), std::string::npos) << dir;
        EXPECT_TRUE(has_pair(argv, "--bind", dir)) << dir;
    }
    if (profile.nested_userns) {
        EXPECT_THAT(argv, Not(Contains("--disable-userns")));
    } else {
        EXPECT_THAT(argv, Contains("--disable-userns"));
    }
    EXPECT_EQ(argv.back(), "--version");
    EXPECT_EQ(argv[argv.size() - 2], profile.executable);
}

} // namespace

TEST(EachShippedAdapterProfile, PlansASessionWithItsGrantsSessionDirsAndUsernsChoice)
{
    for (const auto& file : shipped_profiles()) {
        const auto config = parse_config(config_with(read_text(file)), file.string());
        for (const auto& [name, profile] : config.adapters) {
            SCOPED_TRACE(file.string() + ": " + name);
            expect_plannable(config, name, profile);
        }
    }
}

namespace {

// A profile's settings without comments or blank lines, each line with its
// indentation relative to the profile's key and the key itself dropped.
std::vector<std::string> settings_lines(const std::string& text, const std::string& key_line)
{
    std::vector<std::string> out;
    std::istringstream lines(text);
    std::string::size_type indent = std::string::npos;
    for (std::string line; std::getline(lines, line);) {
        const auto first = line.find_first_not_of(' ');
        if (indent == std::string::npos) {
            if (first != std::string::npos && line.substr(first) == key_line) {
                indent = first;
            }
            continue;
        }
        if (first == std::string::npos || line[first] == '#') {
            continue;
        }
        if (first <= indent) {
            break;
        }
        out.push_back(line.substr(indent));
    }
    return out;
}

std::string with_test_prefix(std::string line)
{
    const std::string shipped = "/opt/agents/";
    if (const auto at = line.find(shipped); at != std::string::npos) {
        line.replace(at, shipped.size(), "/opt/native-runtime-test-clients/");
    }
    return line;
}

} // namespace

TEST(TheIntegrationSuitesExampleClaudeProfile, IsTheShippedClaudeHostProfileWithTheTestInstallPrefix)
{
    auto shipped = settings_lines(read_text(kExamples / "claude.yaml"), "claude-host:");
    std::transform(shipped.begin(), shipped.end(), shipped.begin(), with_test_prefix);
    const auto tested = settings_lines(read_text(NR_INTEGRATION_CONFIG), "example-claude:");
    ASSERT_FALSE(shipped.empty());
    EXPECT_EQ(tested, shipped);
}

// The profile the operator guide gives the application for git on a
// workspace is the one workspace_git_test.cpp shows safe.
TEST(TheIntegrationSuitesGitProfile, IsTheShippedOne)
{
    const auto shipped = settings_lines(read_text(kExamples / "git.yaml"), "git:");
    const auto tested = settings_lines(read_text(NR_INTEGRATION_CONFIG), "git:");
    ASSERT_FALSE(shipped.empty());
    EXPECT_EQ(tested, shipped);
}

namespace {

AdapterProfile shipped_profile(const std::string& file, const std::string& name)
{
    const auto path = kExamples / file;
    const auto config = parse_config(config_with(read_text(path)), path.string());
    const auto found = config.adapters.find(name);
    if (found == config.adapters.end()) {
        ADD_FAILURE() << file << " has no profile " << name;
        return {};
    }
    return found->second;
}

AdapterProfile tested_profile(const std::string& name)
{
    const auto config = parse_config(read_text(NR_INTEGRATION_CONFIG), NR_INTEGRATION_CONFIG);
    return config.adapters.at(name);
}

std::vector<std::string> provider_keys_in(const std::vector<std::string>& credential_env)
{
    std::vector<std::string> keys;
    std::copy_if(credential_env.begin(), credential_env.end(), std::back_inserter(keys),
                 [](const std::string& name) { return is_provider_key_name(name); });
    return keys;
}

// A tested provider entry with the real provider's host and the shipped
// credential name in place of the test upstream's.
ProviderRoute as_shipped(ProviderRoute route, const ProviderRoute& shipped)
{
    route.host = shipped.host;
    route.credential = shipped.credential;
    return route;
}

} // namespace

TEST(TheShippedProfileOfEachProviderApiClient, KeepsTheKeyInTheGatewayByDefault)
{
    for (const auto* client : {"claude", "codex", "acp"}) {
        SCOPED_TRACE(client);
        const auto profile = shipped_profile(std::string(client) + ".yaml", client);
        EXPECT_EQ(profile.network, NetworkMode::Gateway);
        ASSERT_EQ(profile.egress.providers.size(), 1U);
        EXPECT_EQ(profile.egress.allow_hosts, std::vector<std::string>{profile.egress.providers.front().host});
        EXPECT_EQ(provider_keys_in(profile.credential_env), std::vector<std::string>{})
            << "a provider key a worker passes would be in the session after all";
    }
}

TEST(TheHostAlternativeOfEachProviderApiClient, IsTheSameClientWithItsKeysOnTheHostNetwork)
{
    for (const auto* client : {"claude", "codex", "acp"}) {
        SCOPED_TRACE(client);
        const auto file = std::string(client) + ".yaml";
        const auto gateway = shipped_profile(file, client);
        const auto host = shipped_profile(file, std::string(client) + "-host");
        EXPECT_EQ(host.network, NetworkMode::Host);
        EXPECT_EQ(host.executable, gateway.executable);
        EXPECT_EQ(host.read_only_paths, gateway.read_only_paths);
        EXPECT_EQ(host.session_dirs, gateway.session_dirs);
        EXPECT_EQ(host.nested_userns, gateway.nested_userns);
        EXPECT_EQ(host.protected_home_paths, gateway.protected_home_paths);
        EXPECT_FALSE(provider_keys_in(host.credential_env).empty());
    }
}

TEST(EveryShippedProviderApiProfile, KeepsItsClientsHooksSettingsAndShellStartupFilesReadOnly)
{
    const std::map<std::string, std::vector<std::string>> client_code{
        {"claude", {".claude/settings.json", ".claude/hooks"}},
        {"acp", {".claude/settings.json", ".claude/hooks"}},
        {"codex", {".codex/config.toml", ".codex/hooks.json", ".codex/rules"}}};
    for (const auto& [client, paths] : client_code) {
        SCOPED_TRACE(client);
        const auto profile = shipped_profile(client + ".yaml", client);
        auto expected = paths;
        expected.insert(expected.end(), {".bashrc", ".profile", ".gitconfig", ".config/git"});
        for (const auto& path : expected) {
            EXPECT_TRUE(std::any_of(profile.protected_home_paths.begin(), profile.protected_home_paths.end(),
                                    [&path](const ProtectedPath& p) { return p.relative == path; }))
                << path;
        }
    }
}

TEST(TheShippedGatewayProfiles, UseTheProviderEntriesTheGatewayTestsRunTheRealClientsWith)
{
    const auto claude = shipped_profile("claude.yaml", "claude").egress.providers.at(0);
    EXPECT_EQ(claude.host, "api.anthropic.com");
    EXPECT_EQ(as_shipped(tested_profile("claude-gateway").egress.providers.at(0), claude), claude);
    // The ACP example runs Claude Code, which reads the same variables.
    EXPECT_EQ(shipped_profile("acp.yaml", "acp").egress.providers.at(0), claude);

    const auto codex = shipped_profile("codex.yaml", "codex").egress.providers.at(0);
    EXPECT_EQ(codex.host, "api.openai.com");
    EXPECT_EQ(as_shipped(tested_profile("codex-gateway").egress.providers.at(0), codex), codex);
}

TEST(TheShippedGatewayProfiles, GiveTheSessionTheBaseUrlsTheDocsTellTheWorkerToUse)
{
    const auto environment_of = [](const std::string& file, const std::string& name) {
        const auto path = kExamples / file;
        const auto config = parse_config(config_with(read_text(path)), path.string());
        SessionRequest request;
        request.owner = "alice";
        request.chat = "c1";
        request.adapter = name;
        request.argv = {name, "--version"};
        return plan_session(config, request, RunAsUser{"metis-worker", 990, 990},
                            HostFacts{"/usr/libexec/native-runtime/native-runtime-launch", {}, {}}, "token",
                            kGatewayToken)
            .launch.environment;
    };
    const auto codex = environment_of("codex.yaml", "codex");
    EXPECT_THAT(codex, Contains("OPENAI_BASE_URL=http://127.0.0.1:8080/api.openai.com/v1"));
    EXPECT_THAT(codex, Contains("OPENAI_API_KEY=" + kGatewayToken));
    const auto claude = environment_of("claude.yaml", "claude");
    EXPECT_THAT(claude, Contains("ANTHROPIC_BASE_URL=http://127.0.0.1:8080/api.anthropic.com"));
    EXPECT_THAT(claude, Contains("ANTHROPIC_API_KEY=" + kGatewayToken));
}

TEST(TheShippedCursorAndAntigravityProfiles, StayOnTheHostNetworkWithoutAnAlternative)
{
    // Neither client can be pointed at the gateway (docs/adapters.md), so
    // preflight warns about their keys instead.
    for (const auto* client : {"cursor", "antigravity"}) {
        SCOPED_TRACE(client);
        const auto path = kExamples / (std::string(client) + ".yaml");
        const auto config = parse_config(config_with(read_text(path)), path.string());
        ASSERT_EQ(config.adapters.size(), 1U);
        EXPECT_EQ(config.adapters.begin()->second.network, NetworkMode::Host);
        EXPECT_EQ(judge_provider_keys(config).size(), 1U);
    }
}
