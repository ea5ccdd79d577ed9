// SPDX-License-Identifier: Apache-2.0
#include "model_endpoint.h"
#include "test_paths.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace nr::itest {

namespace {

std::string read_all(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

ModelEndpoint::ModelEndpoint(const std::string& api, std::string key, const EndpointListen& listen)
    : key_(std::move(key)), listen_(listen)
{
    std::string pattern = "/run/nr-model-endpoint.XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
        throw std::runtime_error("mkdtemp failed for the model endpoint");
    }
    dir_ = pattern;
    script({});
    // The key is the endpoint's to check; it is a synthetic test value, so
    // the endpoint's own argv may hold it.
    std::vector<std::string> command{"/usr/bin/python3",
                                     NR_MODEL_ENDPOINT,
                                     "--api",
                                     api,
                                     "--address",
                                     listen_.address,
                                     "--port",
                                     std::to_string(listen_.port),
                                     "--key",
                                     key_,
                                     "--script",
                                     dir_ + "/script.json",
                                     "--log",
                                     dir_ + "/exchanges.jsonl",
                                     "--ready-file",
                                     dir_ + "/port"};
    if (!listen_.tls_cert.empty()) {
        command.insert(command.end(), {"--tls-cert", listen_.tls_cert, "--tls-key", listen_.tls_key});
    }
    server_ = std::make_unique<Background>(command);
    if (!eventually(20, [&] { return std::filesystem::exists(dir_ + "/port"); })) {
        throw std::runtime_error("the model endpoint did not start");
    }
    port_ = read_all(dir_ + "/port");
    while (!port_.empty() && port_.back() == '\n') {
        port_.pop_back();
    }
}

ModelEndpoint::~ModelEndpoint()
{
    server_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
}

void ModelEndpoint::script(const std::vector<ScriptedTurn>& turns) const
{
    auto script = nlohmann::ordered_json::object();
    auto& by_marker = script["turns"] = nlohmann::ordered_json::object();
    for (const auto& turn : turns) {
        by_marker[turn.marker] = {{"tools", turn.tools}, {"final", turn.final_text}};
    }
    const auto json = script.dump() + "\n";
    const auto path = dir_ + "/script.json";
    {
        std::ofstream out(path + ".tmp");
        out << json;
    }
    std::filesystem::rename(path + ".tmp", path);
}

std::string ModelEndpoint::base_url() const
{
    return std::string(listen_.tls_cert.empty() ? "http://" : "https://") + listen_.address + ":" + port_;
}

std::string ModelEndpoint::exchanges() const
{
    return read_all(dir_ + "/exchanges.jsonl");
}

ScriptedTurn credential_scan_turn()
{
    return {"TURN-CREDENTIAL",
            {"for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\" 2>/dev/null | "
             "grep -E '^(OPENAI|ANTHROPIC)_API_KEY=' | sed \"s|^|$f |\"; done | sort -u | head -n 4; "
             "echo environ-scan-done"},
            "credential scan complete"};
}

} // namespace nr::itest
