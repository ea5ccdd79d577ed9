// SPDX-License-Identifier: Apache-2.0
#include "agent_clients.h"

#include <iostream>

namespace nr::itest {

std::string workspace_of(const std::string& owner, const std::string& chat)
{
    return std::string(kDataDir) + "/native-runtime/" + owner + "/chats/" + chat + "/workspace";
}

std::vector<std::string> codex_config(const ModelEndpoint& endpoint)
{
    return {"-c",
            "model_provider=mock",
            "-c",
            "model_providers.mock={name=\"mock\",base_url=\"" + endpoint.base_url() +
                "/v1\",env_key=\"OPENAI_API_KEY\",wire_api=\"responses\","
                "request_max_retries=0,stream_max_retries=0}",
            "-c",
            "sandbox_mode=\"workspace-write\"",
            "-c",
            "analytics.enabled=false",
            "-c",
            "features.plugins=false"};
}

std::vector<std::string> codex_exec(const ModelEndpoint& endpoint, const std::string& prompt,
                                    const std::vector<std::string>& config)
{
    std::vector<std::string> argv{"codex", "exec", "--skip-git-repo-check"};
    const auto defaults = codex_config(endpoint);
    argv.insert(argv.end(), defaults.begin(), defaults.end());
    argv.insert(argv.end(), config.begin(), config.end());
    argv.push_back(prompt);
    return argv;
}

std::vector<std::string> claude_print(const std::string& prompt, const std::vector<std::string>& extra,
                                      const char* settings)
{
    std::vector<std::string> argv{"claude", "-p", prompt, "--allowedTools", "Bash", "--settings", settings};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
}

Outcome codex_turn_with(const std::string& owner, const std::string& chat, const std::string& adapter,
                        const ModelEndpoint& endpoint, const std::vector<std::string>& command)
{
    std::vector<std::string> argv{kCtl,    "run",   "--owner",        owner, "--chat", chat, "--adapter",
                                  adapter, "--env", "OPENAI_API_KEY", "--"};
    argv.insert(argv.end(), command.begin(), command.end());
    return run(as_user(kWorker, argv), with_env({"OPENAI_API_KEY=" + endpoint.key()}));
}

Outcome claude_turn_with(const std::string& owner, const std::string& chat, const std::string& adapter,
                         const ModelEndpoint& endpoint, const std::vector<std::string>& command)
{
    std::vector<std::string> argv{kCtl,        "run",
                                  "--owner",   owner,
                                  "--chat",    chat,
                                  "--adapter", adapter,
                                  "--env",     "ANTHROPIC_API_KEY",
                                  "--env",     "ANTHROPIC_BASE_URL=" + endpoint.base_url(),
                                  "--env",     "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
                                  "--"};
    argv.insert(argv.end(), command.begin(), command.end());
    return run(as_user(kWorker, argv), with_env({"ANTHROPIC_API_KEY=" + endpoint.key()}));
}

void print_transcript(const std::string& title, const ModelEndpoint& endpoint, const Outcome& outcome)
{
    std::cout << "---- TRANSCRIPT " << title << " ----\n"
              << "endpoint exchanges (request -> answer):\n"
              << endpoint.exchanges() << "worker exit status: " << outcome.status << "\n"
              << "worker stdout:\n"
              << outcome.out << "worker stderr:\n"
              << outcome.err << "---- END TRANSCRIPT " << title << " ----\n";
}

} // namespace nr::itest
