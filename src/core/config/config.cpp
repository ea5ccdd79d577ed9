// SPDX-License-Identifier: Apache-2.0
#include "core/config/config.h"

#include "core/config/config_reader.h"
#include "core/config/config_sections.h"

#include <algorithm>

// One file per section of the file (core/config/config_sections.h); the reader
// (core/config/config_reader.h) does the strict YAML part, and the checks at the
// end look across sections.
namespace nr::core {

namespace {

using config_sections::check_forbidden_env;
using config_sections::check_grants_against_hidden;
using config_sections::check_session_dirs_against_grants;
using config_sections::Key;
using config_sections::merge_owner_protection;
using config_sections::Node;
using config_sections::read_adapters;
using config_sections::read_app_units;
using config_sections::read_callers;
using config_sections::read_files;
using config_sections::read_gateway;
using config_sections::read_limits;
using config_sections::read_owner_limits;
using config_sections::read_sandbox;

void check_required_keys(const ConfigReader& r, const Node& root, const Config& config, bool has_callers)
{
    // A path read is never empty, so an empty one was not in the file.
    if (config.data_dir.empty()) {
        r.error_at(root, "data_dir", "missing required key");
    }
    if (!has_callers) {
        r.error_at(root, "callers", "missing required key");
    }
    if (config.read_only_paths.empty()) {
        r.error_at(root, "sandbox.read_only_paths", "missing required key");
    }
    if (config.adapters.empty()) {
        r.error_at(root, "adapters", "at least one adapter profile is required");
    }
    if (config.data_dir == "/") {
        r.error_at(root["data_dir"], "data_dir", "must not be /");
    }
}

// An adapter's limits apply over the global ones, which may come later
// in the file, so they are read once everything else is.
void apply_adapter_limits(const ConfigReader& r, const Node& root, Config& config)
{
    for (auto& [name, profile] : config.adapters) {
        if (const auto node = root["adapters"][name]["limits"]) {
            SessionLimits limits = config.limits;
            read_limits(r, node, "adapters." + name + ".limits", limits);
            profile.limits = limits;
        }
    }
}

// The snapshot dir is absent from every session: no grant, workspace or
// session directory may overlap it.
void hide_snapshot_dir(Config& config)
{
    if (!config.snapshot_dir.empty() && std::find(config.hidden_paths.begin(), config.hidden_paths.end(),
                                                  config.snapshot_dir) == config.hidden_paths.end()) {
        config.hidden_paths.push_back(config.snapshot_dir);
    }
}

} // namespace

Config parse_config(std::string_view yaml_text, std::string_view source)
{
    const ConfigReader r(source);
    const Node root = r.load(yaml_text);
    Config config;
    config.source = std::string(source);
    bool has_callers = false; // `callers: {}` is a valid, empty section
    r.for_each_key(
        root, "",
        {
            {"data_dir", r.assign(config.data_dir, &ConfigReader::absolute_path)},
            {"bwrap", r.assign(config.bwrap_path, &ConfigReader::absolute_path)},
            {"snapshot_dir", r.assign(config.snapshot_dir, &ConfigReader::absolute_path)},
            {"app_units", [&](const Node& n, const Key& k) { config.app_units = read_app_units(r, n, k); }},
            {"idle_timeout_sec",
             [&](const Node& n, const Key& k) {
                 config.idle_timeout_sec = static_cast<std::uint32_t>(r.unsigned_number(n, k, 86400));
             }},
            {"path", r.assign(config.default_path, &ConfigReader::scalar)},
            {"callers",
             [&](const Node& n, const Key& k) {
                 has_callers = true;
                 config.callers = read_callers(r, n, k);
             }},
            {"sandbox", [&](const Node& n, const Key& k) { read_sandbox(r, n, k, config); }},
            {"limits", [&](const Node& n, const Key& k) { read_limits(r, n, k, config.limits); }},
            {"owner_limits", [&](const Node& n, const Key& k) { config.owner_limits = read_owner_limits(r, n, k); }},
            {"files", [&](const Node& n, const Key& k) { config.files = read_files(r, n, k); }},
            {"adapters", [&](const Node& n, const Key& k) { read_adapters(r, n, k, config); }},
            {"gateway", [&](const Node& n, const Key& k) { config.gateway = read_gateway(r, n, k); }},
        });
    check_required_keys(r, root, config, has_callers);
    check_forbidden_env(r, root, config);
    merge_owner_protection(r, root, config);
    apply_adapter_limits(r, root, config);
    hide_snapshot_dir(config);
    check_grants_against_hidden(r, root, config);
    check_session_dirs_against_grants(r, root, config);
    return config;
}

} // namespace nr::core
