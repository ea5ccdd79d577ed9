// SPDX-License-Identifier: Apache-2.0
#pragma once
// A local model endpoint for real agent turns: tests/integration/model_endpoint.py
// (OpenAI Responses API for Codex, Anthropic Messages API for Claude Code),
// started by the test binary, i.e. as root inside the harness's private
// network namespace, on the gateway address sessions may reach.

#include <memory>
#include <string>
#include <vector>

#include "process.h"

namespace nr::itest {

// The one address in tests/integration/config.yaml's allowed_addresses.
inline constexpr const char* kGatewayAddress = "127.0.0.2";

// One scripted turn: the shell commands the model asks for, in order, then a
// final message quoting their results ("[tool N] ...") and the conversation's
// TURN-... markers ("conversation: ...").
struct ScriptedTurn {
    std::string marker; // TURN-..., the word in the prompt that selects this turn
    std::vector<std::string> tools;
    std::string final_text;
};

// The known-exposure scan (agent_turns_test.cpp, gateway_test.cpp): a tool
// that sends back every API key variable in any visible process's
// environment, with where it was.
ScriptedTurn credential_scan_turn();

// Where the endpoint listens, and whether it speaks HTTPS (as the egress
// gateway's upstream, with a certificate only the gateway trusts).
struct EndpointListen {
    std::string address = kGatewayAddress;
    int port = 0; // 0: any free port
    std::string tls_cert;
    std::string tls_key;
};

class ModelEndpoint {
public:
    // api: "openai" or "anthropic"; every request must carry `key`.
    ModelEndpoint(const std::string& api, std::string key, const EndpointListen& listen = {});
    ModelEndpoint(const ModelEndpoint&) = delete;
    ModelEndpoint& operator=(const ModelEndpoint&) = delete;
    ModelEndpoint(ModelEndpoint&&) = delete;
    ModelEndpoint& operator=(ModelEndpoint&&) = delete;
    ~ModelEndpoint();

    // Replaces the turn script (read by the endpoint at every request).
    void script(const std::vector<ScriptedTurn>& turns) const;
    // http://127.0.0.2:PORT (https://ADDRESS:PORT with TLS)
    [[nodiscard]] std::string base_url() const;
    [[nodiscard]] const std::string& port() const { return port_; }
    [[nodiscard]] const std::string& key() const { return key_; }
    // Every exchange so far, one JSON object a line.
    [[nodiscard]] std::string exchanges() const;

private:
    std::string key_;
    EndpointListen listen_;
    std::string dir_;
    std::string port_;
    std::unique_ptr<Background> server_;
};

} // namespace nr::itest
