// SPDX-License-Identifier: Apache-2.0
#include "core/ops/provider_keys.h"

#include "config_fixtures.h"

#include <gtest/gtest.h>

using namespace nr::core;

namespace {

AdapterProfile adapter(const std::string& name, NetworkMode network, std::vector<std::string> credential_env)
{
    AdapterProfile profile;
    profile.name = name;
    profile.executable = "/opt/agents/" + name + "/bin/" + name;
    profile.network = network;
    profile.credential_env = std::move(credential_env);
    return profile;
}

Config config_with(const std::vector<AdapterProfile>& adapters)
{
    auto config = nr::test::two_adapter_config();
    config.adapters.clear();
    for (const auto& profile : adapters) {
        config.adapters.emplace(profile.name, profile);
    }
    return config;
}

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

TEST(TheProviderKeyNames, AreTheKeysAndLoginTokensOfTheClientsAndProvidersSdks)
{
    for (const auto* name :
         {"OPENAI_API_KEY", "CODEX_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
          "GEMINI_API_KEY", "GOOGLE_API_KEY", "CURSOR_API_KEY", "AZURE_OPENAI_API_KEY", "MISTRAL_API_KEY",
          "GROQ_API_KEY", "OPENROUTER_API_KEY", "DEEPSEEK_API_KEY", "XAI_API_KEY", "AWS_BEARER_TOKEN_BEDROCK",
          "ANTHROPIC_FOUNDRY_API_KEY"}) {
        EXPECT_TRUE(is_provider_key_name(name)) << name;
    }
}

TEST(TheProviderKeyNames, LeaveOutSettingsThatAreNoSecretAndMatchCaseExactly)
{
    for (const auto* name :
         {"ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "CODEX_HOME", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
          "NR_TEST_TOKEN", "openai_api_key", "OPENAI_API_KEY_FILE", ""}) {
        EXPECT_FALSE(is_provider_key_name(name)) << name;
    }
}

TEST(AHostNetworkAdapterWithAProviderKey, GetsAWarningThatPassesAndNamesTheAdapterAndTheKey)
{
    const auto warnings =
        judge_provider_keys(config_with({adapter("claude-host", NetworkMode::Host, {"ANTHROPIC_API_KEY"})}));
    ASSERT_EQ(warnings.size(), 1U);
    const auto& warning = warnings.front();
    EXPECT_EQ(warning.name, kCheckProviderKey);
    EXPECT_TRUE(warning.passed) << "a warning never fails preflight or the helper's gate";
    EXPECT_TRUE(warning.warning);
    EXPECT_TRUE(contains(warning.detail, "adapter claude-host gives its sessions ANTHROPIC_API_KEY with network: host"))
        << warning.detail;
    EXPECT_TRUE(contains(warning.detail, "every tool the model runs can read the key")) << warning.detail;
}

TEST(AHostNetworkAdapterWithAProviderKey, IsToldToMoveTheKeyIntoTheGatewayAndRotateIt)
{
    const auto warnings = judge_provider_keys(config_with({adapter("codex", NetworkMode::Host, {"OPENAI_API_KEY"})}));
    ASSERT_EQ(warnings.size(), 1U);
    const auto& hint = warnings.front().hint;
    EXPECT_TRUE(contains(hint, "network: gateway")) << hint;
    EXPECT_TRUE(contains(hint, "egress provider entry")) << hint;
    EXPECT_TRUE(contains(hint, "rotate a key its sessions have held")) << hint;
}

TEST(AHostNetworkAdapterWithSeveralProviderKeys, GetsOneWarningNamingEachKeyButNotItsOtherNames)
{
    const auto warnings = judge_provider_keys(config_with(
        {adapter("claude-host", NetworkMode::Host,
                 {"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"})}));
    ASSERT_EQ(warnings.size(), 1U);
    EXPECT_TRUE(contains(warnings.front().detail,
                         "gives its sessions ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN with"))
        << warnings.front().detail;
    EXPECT_FALSE(contains(warnings.front().detail, "ANTHROPIC_BASE_URL")) << warnings.front().detail;
}

TEST(AGatewayAdapter, GetsNoWarningEvenWithAProviderKeyNameInItsCredentials)
{
    // The gateway's own key_env cannot be in credential_env (the parser
    // refuses it), but another provider's name can; it can only reach the
    // gateway's allow-listed hosts.
    const auto config = config_with({adapter("codex", NetworkMode::Gateway, {"GEMINI_API_KEY"})});
    EXPECT_TRUE(judge_provider_keys(config).empty());
}

TEST(AnOfflineAdapter, GetsNoWarningBecauseItsSessionsReachNothing)
{
    const auto config = config_with({adapter("codex", NetworkMode::Offline, {"OPENAI_API_KEY"})});
    EXPECT_TRUE(judge_provider_keys(config).empty());
}

TEST(AHostNetworkAdapterWithoutAProviderKey, GetsNoWarning)
{
    const auto config = config_with({adapter("shell", NetworkMode::Host, {"NR_TEST_TOKEN", "CODEX_HOME"}),
                                     adapter("probe", NetworkMode::Host, {})});
    EXPECT_TRUE(judge_provider_keys(config).empty());
}

TEST(TheProviderKeyWarnings, ComeOnePerAdapterInTheOrderOfTheAdapterNames)
{
    const auto warnings = judge_provider_keys(config_with({
        adapter("codex-host", NetworkMode::Host, {"OPENAI_API_KEY"}),
        adapter("claude", NetworkMode::Gateway, {}),
        adapter("claude-host", NetworkMode::Host, {"ANTHROPIC_API_KEY"}),
        adapter("cursor", NetworkMode::Host, {"CURSOR_API_KEY"}),
    }));
    ASSERT_EQ(warnings.size(), 3U);
    EXPECT_TRUE(contains(warnings[0].detail, "adapter claude-host ")) << warnings[0].detail;
    EXPECT_TRUE(contains(warnings[1].detail, "adapter codex-host ")) << warnings[1].detail;
    EXPECT_TRUE(contains(warnings[2].detail, "adapter cursor ")) << warnings[2].detail;
}

TEST(AProviderKeyWarning, IsNoFailureOfTheHost)
{
    auto results = judge_provider_keys(config_with({adapter("codex", NetworkMode::Host, {"OPENAI_API_KEY"})}));
    ASSERT_EQ(results.size(), 1U);
    EXPECT_FALSE(first_failure(results).has_value());
}
