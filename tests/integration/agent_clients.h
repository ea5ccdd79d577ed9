// SPDX-License-Identifier: Apache-2.0
#pragma once
// How the integration tests drive the real clients (Codex, Claude Code)
// against the scripted model endpoint: their command lines, one turn run
// through native-runtimectl as the worker, and the transcript in the log.

#include <string>
#include <vector>

#include "fixture.h"
#include "model_endpoint.h"

namespace nr::itest {

std::string workspace_of(const std::string& owner, const std::string& chat);

// Codex's -c settings for the endpoint: the mock provider speaks the
// Responses API with the key from OPENAI_API_KEY, Codex's own sandbox may
// write the workspace only, and nothing is looked up on public hosts.
std::vector<std::string> codex_config(const ModelEndpoint& endpoint);

// `codex exec` with codex_config; `config` adds -c settings after it (a
// later -c of the same key wins).
std::vector<std::string> codex_exec(const ModelEndpoint& endpoint, const std::string& prompt,
                                    const std::vector<std::string>& config = {});

// Claude's own Bash sandbox (sandbox-runtime) stays off by default: it
// cannot start in a session (it listens on a unix socket, which the session
// refuses), and after that failure Claude runs later commands without it
// (docs/adapters.md).
inline constexpr const char* kClaudeSandboxOff = R"({"sandbox":{"enabled":false}})";

// `claude -p` with only the Bash tool allowed and `settings`.
std::vector<std::string> claude_print(const std::string& prompt, const std::vector<std::string>& extra = {},
                                      const char* settings = kClaudeSandboxOff);

// One turn of `adapter` in (owner, chat) as the worker, with the endpoint's key.
Outcome codex_turn_with(const std::string& owner, const std::string& chat, const std::string& adapter,
                        const ModelEndpoint& endpoint, const std::vector<std::string>& command);
Outcome claude_turn_with(const std::string& owner, const std::string& chat, const std::string& adapter,
                         const ModelEndpoint& endpoint, const std::vector<std::string>& command);

// What the endpoint was sent and answered, and what the worker got.
void print_transcript(const std::string& title, const ModelEndpoint& endpoint, const Outcome& outcome);

} // namespace nr::itest
