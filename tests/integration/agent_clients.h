#pragma once
// How the integration tests drive the real clients (Codex, Claude Code)
// against the scripted model endpoint: their command lines, one turn run
// through native-runtimectl as the worker, and the transcript in the log.

#include <string>
#include <vector>

#include "fixture.h"
#include "model_endpoint.h"

namespace nr::itest {

std::string random_key(const std::string& prefix);
std::string home_of(const std::string& owner);
std::string workspace_of(const std::string& owner, const std::string& chat);

// `codex exec` pointed at the endpoint; `config` adds -c settings after the
// defaults (a later -c of the same key wins).
std::vector<std::string> codex_exec(const ModelEndpoint& endpoint, const std::string& prompt,
                                    const std::vector<std::string>& config = {});

// `claude -p` with only the Bash tool allowed and Claude's own sandbox off
// (docs/adapters.md: it cannot start in a session).
std::vector<std::string> claude_print(const std::string& prompt, const std::vector<std::string>& extra = {});

// One turn of `adapter` in (owner, chat) as the worker, with the endpoint's key.
Outcome codex_turn_with(const std::string& owner, const std::string& chat, const std::string& adapter,
                        const ModelEndpoint& endpoint, const std::vector<std::string>& command);
Outcome claude_turn_with(const std::string& owner, const std::string& chat, const std::string& adapter,
                         const ModelEndpoint& endpoint, const std::vector<std::string>& command);

// What the endpoint was sent and answered, and what the worker got.
void print_transcript(const std::string& title, const ModelEndpoint& endpoint, const Outcome& outcome);

} // namespace nr::itest
