#include "model_endpoint.h"

#include <array>
#include <cstdio>
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

std::string json_string(const std::string& text)
{
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                std::array<char, 8> escaped{};
                std::snprintf(escaped.data(), escaped.size(), "\\u%04x", static_cast<unsigned>(c));
                out += escaped.data();
            } else {
                out += c;
            }
        }
    }
    return out + "\"";
}

ModelEndpoint::ModelEndpoint(const std::string& api, std::string key) : key_(std::move(key))
{
    std::string pattern = "/run/nr-model-endpoint.XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
        throw std::runtime_error("mkdtemp failed for the model endpoint");
    }
    dir_ = pattern;
    script({});
    // The key is the endpoint's to check; it is a synthetic test value, so
    // the endpoint's own argv may hold it.
    server_ = std::make_unique<Background>(std::vector<std::string>{
        "/usr/bin/python3", NR_MODEL_ENDPOINT, "--api", api, "--address", kGatewayAddress, "--key", key_, "--script",
        dir_ + "/script.json", "--log", dir_ + "/exchanges.jsonl", "--ready-file", dir_ + "/port"});
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
    std::string json = "{\"turns\": {";
    for (std::size_t i = 0; i < turns.size(); ++i) {
        json += (i == 0 ? "" : ", ") + json_string(turns[i].marker) + ": {\"tools\": [";
        for (std::size_t t = 0; t < turns[i].tools.size(); ++t) {
            json += (t == 0 ? "" : ", ") + json_string(turns[i].tools[t]);
        }
        json += "], \"final\": " + json_string(turns[i].final_text) + "}";
    }
    json += "}}\n";
    const auto path = dir_ + "/script.json";
    {
        std::ofstream out(path + ".tmp");
        out << json;
    }
    std::filesystem::rename(path + ".tmp", path);
}

std::string ModelEndpoint::base_url() const
{
    return std::string("http://") + kGatewayAddress + ":" + port_;
}

std::string ModelEndpoint::exchanges() const
{
    return read_all(dir_ + "/exchanges.jsonl");
}

} // namespace nr::itest
