// SPDX-License-Identifier: Apache-2.0
#pragma once
// The strict YAML reader under the config parser, and the only core header
// that names yaml-cpp: policy code sees the parsed Config (core/config/config.h),
// never a YAML node. Every refusal is Error(ConfigInvalid) as
// "<source>:<line>: <dotted key>: <problem>", with a 1-based line.

#include "core/base/network_policy.h"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace nr::core {

class ConfigReader {
public:
    // Reads the value of one key; gets the value's node and its dotted key.
    using Handler = std::function<void(const YAML::Node&, const std::string&)>;

    explicit ConfigReader(std::string_view source) : source_(source) {}

    // The root of `yaml_text`, refusing invalid YAML, a second document
    // (yaml-cpp would drop it silently) and a file with no settings at all.
    [[nodiscard]] YAML::Node load(std::string_view yaml_text) const;

    [[noreturn]] void error_at(const YAML::Node& node, const std::string& key, const std::string& problem) const;

    // Visits every key of the mapping `map` (dotted key `where`, "" at the
    // top) in file order, refusing keys without a handler, duplicate keys
    // and empty values.
    void for_each_key(const YAML::Node& map, const std::string& where,
                      const std::map<std::string, Handler, std::less<>>& handlers) const;

    // Visits every item of the sequence `node` in file order, each under
    // the sequence's key `where`, refusing anything but a sequence.
    void for_each_item(const YAML::Node& node, const std::string& where, const Handler& handler) const;

    // A mapping key, which must be a plain string.
    [[nodiscard]] std::string key_of(const YAML::Node& key, const std::string& where) const;

    [[nodiscard]] std::string scalar(const YAML::Node& node, const std::string& key) const;
    [[nodiscard]] std::string absolute_path(const YAML::Node& node, const std::string& key) const;
    [[nodiscard]] std::vector<std::string> string_list(const YAML::Node& node, const std::string& key) const;
    [[nodiscard]] std::vector<std::string> path_list(const YAML::Node& node, const std::string& key) const;
    [[nodiscard]] std::vector<IpPrefix> address_list(const YAML::Node& node, const std::string& key) const;
    [[nodiscard]] std::uint64_t unsigned_number(const YAML::Node& node, const std::string& key,
                                                std::uint64_t max) const;
    [[nodiscard]] std::uint64_t byte_size(const YAML::Node& node, const std::string& key) const;
    [[nodiscard]] bool boolean(const YAML::Node& node, const std::string& key) const
    {
        return !second_choice(node, key, "true", "false");
    }
    // Whether the scalar is `second` rather than `first`, the only two it
    // may be; refused as "expected <first> or <second>".
    [[nodiscard]] bool second_choice(const YAML::Node& node, const std::string& key, std::string_view first,
                                     std::string_view second) const;

    // A handler that stores what `read` returns in `field`.
    template <typename Field, typename Value>
    [[nodiscard]] Handler assign(Field& field,
                                 Value (ConfigReader::*read)(const YAML::Node&, const std::string&) const) const
    {
        return
            [this, &field, read](const YAML::Node& node, const std::string& key) { field = (this->*read)(node, key); };
    }

    // A handler that stores an unsigned integer up to `max` in `field`.
    template <typename Field> [[nodiscard]] Handler assign(Field& field, std::uint64_t max) const
    {
        return [this, &field, max](const YAML::Node& node, const std::string& key) {
            field = static_cast<Field>(unsigned_number(node, key, max));
        };
    }

private:
    [[noreturn]] void fail_at_line(long line, const std::string& what) const;
    // Each item of a sequence, read by `item` under the sequence's key.
    template <typename Item>
    std::vector<Item> list(const YAML::Node& node, const std::string& key,
                           Item (ConfigReader::*item)(const YAML::Node&, const std::string&) const) const;
    [[nodiscard]] IpPrefix address(const YAML::Node& node, const std::string& key) const;

    std::string source_;
};

} // namespace nr::core
