// SPDX-License-Identifier: Apache-2.0
#include "core/ops/provider_keys.h"

#include "core/base/joined.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <string>

namespace nr::core {

namespace {

// Each is the name a provider's own client or SDK reads its key from;
// AWS_BEARER_TOKEN_BEDROCK and ANTHROPIC_FOUNDRY_API_KEY are the keys Claude
// Code reads for Bedrock and Microsoft Foundry.
constexpr std::array<std::string_view, 16> kProviderKeyNames{
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_FOUNDRY_API_KEY",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AZURE_OPENAI_API_KEY",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CODEX_API_KEY",
    "CURSOR_API_KEY",
    "DEEPSEEK_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GROQ_API_KEY",
    "MISTRAL_API_KEY",
    "OPENAI_API_KEY",
    "OPENROUTER_API_KEY",
    "XAI_API_KEY",
};

} // namespace

bool is_provider_key_name(std::string_view name)
{
    return std::find(kProviderKeyNames.begin(), kProviderKeyNames.end(), name) != kProviderKeyNames.end();
}

std::vector<CheckResult> judge_provider_keys(const Config& config)
{
    std::vector<CheckResult> warnings;
    for (const auto& [name, profile] : config.adapters) {
        if (profile.network != NetworkMode::Host) {
            continue;
        }
        std::vector<std::string> keys;
        std::copy_if(profile.credential_env.begin(), profile.credential_env.end(), std::back_inserter(keys),
                     [](const std::string& env) { return is_provider_key_name(env); });
        if (keys.empty()) {
            continue;
        }
        warnings.push_back(
            {kCheckProviderKey, true,
             "adapter " + name + " gives its sessions " + joined(keys, ", ") +
                 " with network: host, where every tool the model runs can read the key and send it wherever the "
                 "session reaches",
             "give the adapter network: gateway and an egress provider entry for its key, so that only "
             "native-runtime-gateway holds it (docs/adapters.md), and rotate a key its sessions have held",
             true});
    }
    return warnings;
}

} // namespace nr::core
