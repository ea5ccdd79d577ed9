// SPDX-License-Identifier: Apache-2.0
#include "core/config/config_reader.h"

#include "core/base/error.h"
#include "core/base/path_policy.h"
#include "core/config/config.h"

#include <yaml-cpp/eventhandler.h>

#include <charconv>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

namespace nr::core {

namespace {

// Counts documents without building nodes, stopping at the second:
// YAML::LoadAll never returns on some malformed inputs (found by
// tests/fuzz/config_fuzz.cpp), because yaml-cpp keeps reporting empty
// documents without consuming input.
class DocumentCounter : public YAML::EventHandler {
public:
    void OnDocumentStart(const YAML::Mark& mark) override { last_start = mark; }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}

    YAML::Mark last_start = YAML::Mark::null_mark();
};

} // namespace

YAML::Node ConfigReader::load(std::string_view yaml_text) const
{
    YAML::Node root;
    std::optional<YAML::Mark> second_document;
    try {
        root = YAML::Load(std::string(yaml_text));
        std::istringstream in{std::string(yaml_text)};
        YAML::Parser parser(in);
        DocumentCounter counter;
        if (parser.HandleNextDocument(counter) && parser.HandleNextDocument(counter)) {
            second_document = counter.last_start;
        }
    } catch (const YAML::Exception& e) {
        fail_at_line(e.mark.line + 1, "not valid YAML: " + e.msg);
    }
    // YAML::Load reads only the first document; a second one would otherwise
    // be dropped without a word.
    if (second_document) {
        fail_at_line(second_document->line + 1, "<top>: expected a single YAML document");
    }
    // The package ships config.yaml as a fully commented example: a file with
    // no settings at all is refused by name, so the operator knows what to do.
    if (!root.IsDefined() || root.IsNull()) {
        fail_at_line(1, "<top>: no settings (the file is empty or only comments): complete it, starting from the "
                        "commented example, as configuration.md describes");
    }
    return root;
}

void ConfigReader::error_at(const YAML::Node& node, const std::string& key, const std::string& problem) const
{
    fail_at_line(node.Mark().line >= 0 ? node.Mark().line + 1 : 0, key + ": " + problem);
}

void ConfigReader::fail_at_line(long line, const std::string& what) const
{
    fail(ErrorKind::ConfigInvalid, source_ + ":" + std::to_string(line) + ": " + what);
}

void ConfigReader::for_each_key(const YAML::Node& map, const std::string& where,
                                const std::map<std::string, Handler, std::less<>>& handlers) const
{
    if (!map.IsMap()) {
        error_at(map, where.empty() ? "<top>" : where, "expected a mapping");
    }
    std::set<std::string> seen;
    for (const auto& entry : map) {
        const auto key = key_of(entry.first, where);
        const auto full = where.empty() ? key : where + "." + key;
        const auto handler = handlers.find(key);
        if (handler == handlers.end()) {
            error_at(entry.first, full, "unknown key");
        }
        if (!seen.insert(key).second) {
            error_at(entry.first, full, "duplicate key");
        }
        // No key takes an empty value, and yaml-cpp marks an empty value
        // at the following line, so report it at the key's own line.
        if (entry.second.IsNull()) {
            error_at(entry.first, full, "expected a value");
        }
        handler->second(entry.second, full);
    }
}

// A complex key ("? [a, b]") would otherwise escape as a yaml-cpp
// conversion error.
std::string ConfigReader::key_of(const YAML::Node& key, const std::string& where) const
{
    if (!key.IsScalar()) {
        error_at(key, where.empty() ? "<top>" : where, "keys must be strings");
    }
    return key.Scalar();
}

std::string ConfigReader::scalar(const YAML::Node& node, const std::string& key) const
{
    if (!node.IsScalar()) {
        error_at(node, key, "expected a string");
    }
    return node.Scalar();
}

std::string ConfigReader::absolute_path(const YAML::Node& node, const std::string& key) const
{
    auto value = scalar(node, key);
    try {
        validate_absolute_path(value, key);
    } catch (const Error& e) {
        error_at(node, key, e.what());
    }
    return value;
}

void ConfigReader::for_each_item(const YAML::Node& node, const std::string& key, const Handler& handler) const
{
    if (!node.IsSequence()) {
        error_at(node, key, "expected a list");
    }
    for (const auto& each : node) {
        handler(each, key);
    }
}

template <typename Item>
std::vector<Item> ConfigReader::list(const YAML::Node& node, const std::string& key,
                                     Item (ConfigReader::*item)(const YAML::Node&, const std::string&) const) const
{
    std::vector<Item> out;
    for_each_item(node, key,
                  [&](const YAML::Node& each, const std::string& where) { out.push_back((this->*item)(each, where)); });
    return out;
}

std::vector<std::string> ConfigReader::string_list(const YAML::Node& node, const std::string& key) const
{
    return list(node, key, &ConfigReader::scalar);
}

std::vector<std::string> ConfigReader::path_list(const YAML::Node& node, const std::string& key) const
{
    return list(node, key, &ConfigReader::absolute_path);
}

std::vector<IpPrefix> ConfigReader::address_list(const YAML::Node& node, const std::string& key) const
{
    return list(node, key, &ConfigReader::address);
}

IpPrefix ConfigReader::address(const YAML::Node& node, const std::string& key) const
{
    try {
        return parse_ip_prefix(scalar(node, key));
    } catch (const std::invalid_argument& e) {
        error_at(node, key, e.what());
    }
}

std::uint64_t ConfigReader::unsigned_number(const YAML::Node& node, const std::string& key, std::uint64_t max) const
{
    const auto text = scalar(node, key);
    std::uint64_t value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end || value > max) {
        error_at(node, key, "expected an unsigned integer up to " + std::to_string(max));
    }
    return value;
}

std::uint64_t ConfigReader::byte_size(const YAML::Node& node, const std::string& key) const
{
    try {
        return parse_byte_size(scalar(node, key));
    } catch (const std::invalid_argument&) {
        error_at(node, key, "expected a size such as 512M or 2G");
    }
}

bool ConfigReader::second_choice(const YAML::Node& node, const std::string& key, std::string_view first,
                                 std::string_view second) const
{
    const auto text = scalar(node, key);
    if (text != first && text != second) {
        error_at(node, key, "expected " + std::string(first) + " or " + std::string(second));
    }
    return text == second;
}

} // namespace nr::core
