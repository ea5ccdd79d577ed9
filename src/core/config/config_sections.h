// SPDX-License-Identifier: Apache-2.0
#pragma once
// Internal to the config parser (core/config*.cpp): the readers of the
// file's sections, one file per section, and the checks that look across
// sections once all are read. parse_config (core/config/config.cpp) ties them
// together; nothing outside the parser includes this header.

#include "core/base/error.h"
#include "core/base/ids.h"
#include "core/config/config.h"
#include "core/config/config_reader.h"

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nr::core::config_sections {

using Node = YAML::Node;
using Key = std::string;

inline constexpr std::string_view kOwnerPlaceholder = "{owner}";

// The top-level sections every session's sandbox is built from
// (core/config/config_sandbox.cpp).
std::vector<std::string> read_app_units(const ConfigReader& r, const Node& node, const Key& key);
CallerPolicy read_callers(const ConfigReader& r, const Node& node, const Key& key);
void read_sandbox(const ConfigReader& r, const Node& node, const Key& key, Config& config);
// Applies the keys present on top of `limits` (the defaults, or for an
// adapter the global limits).
void read_limits(const ConfigReader& r, const Node& node, const Key& key, SessionLimits& limits);
OwnerLimits read_owner_limits(const ConfigReader& r, const Node& node, const Key& key);
FileOperations read_files(const ConfigReader& r, const Node& node, const Key& key);

// `adapters` (core/config/config_adapters.cpp).
void read_adapters(const ConfigReader& r, const Node& node, const Key& key, Config& config);
// A request setting a forbidden name is refused whatever the profile says,
// so listing one is always a mistake, and for the TLS-weakening names a
// dangerous one: say so when the config is loaded, not on the first request.
void refuse_forbidden_credential_name(const ConfigReader& r, const Node& node, const Key& key, const std::string& name);

// An adapter's `egress` (core/config/config_egress.cpp).
EgressPolicy read_egress(const ConfigReader& r, const Node& node, const Key& key);
// Each provider's host must be allowed (the gateway forwards nowhere else),
// routes one host once, and every planned variable is set once and is never
// also a name the worker may pass: the real key must not reach a session
// as a credential beside the placeholder.
void check_egress(const ConfigReader& r, const Node& node, const Key& key, const AdapterProfile& profile);
// The variables a provider entry has the plan set, by their key.
std::array<std::pair<std::string, std::string>, 2> planned_names(const ProviderRoute& route);

// `gateway` (core/config/config_gateway.cpp).
GatewaySettings read_gateway(const ConfigReader& r, const Node& node, const Key& key);

// The checks across sections, run once every section is read
// (core/config/config_checks.cpp).
void check_forbidden_env(const ConfigReader& r, const Node& root, const Config& config);
void check_grants_against_hidden(const ConfigReader& r, const Node& root, const Config& config);
void check_session_dirs_against_grants(const ConfigReader& r, const Node& root, const Config& config);
void merge_owner_protection(const ConfigReader& r, const Node& root, Config& config);

// A mapping whose keys the operator chooses (adapter names, owner ids): no
// fixed schema, so each key must be an id of `kind`, used once, with a
// value `read` takes.
template <typename Map, typename Read>
void read_id_map(const ConfigReader& r, const Node& node, const Key& key, IdKind kind, const char* expected, Map& out,
                 const Read& read)
{
    if (!node.IsMap()) {
        r.error_at(node, key, std::string("expected ") + expected);
    }
    for (const auto& entry : node) {
        const auto name = r.key_of(entry.first, key);
        const auto full = key + "." + name;
        try {
            validate_id(kind, name);
        } catch (const Error& e) {
            r.error_at(entry.first, full, e.what());
        }
        if (out.contains(name)) {
            r.error_at(entry.first, full, "duplicate key");
        }
        if (entry.second.IsNull()) {
            r.error_at(entry.first, full, "expected a value");
        }
        out[name] = read(entry.second, full, name);
    }
}

} // namespace nr::core::config_sections
