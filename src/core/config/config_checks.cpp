// SPDX-License-Identifier: Apache-2.0
#include "core/config/config_sections.h"

#include "core/base/path_policy.h"

#include <algorithm>

// The checks that look across sections, run once every section is read.
namespace nr::core::config_sections {

// Application master secrets may be neither the MCP token nor any adapter's
// credential.
void check_forbidden_env(const ConfigReader& r, const Node& root, const Config& config)
{
    for (const auto& name : config.forbidden_env) {
        if (name == config.mcp_token_env) {
            r.error_at(root, "sandbox.mcp_token_env", name + " is also listed in sandbox.forbidden_env");
        }
        for (const auto& [adapter_name, profile] : config.adapters) {
            if (std::find(profile.credential_env.begin(), profile.credential_env.end(), name) !=
                profile.credential_env.end()) {
                r.error_at(root, "adapters." + adapter_name + ".credential_env",
                           name + " is listed in sandbox.forbidden_env (an application master secret)");
            }
        }
    }
    // The gateway's variables are the plan's: neither a master secret nor
    // the MCP token (which a request may set) may share a name with one.
    for (const auto& [adapter_name, profile] : config.adapters) {
        for (std::size_t i = 0; i < profile.egress.providers.size(); ++i) {
            const auto& route = profile.egress.providers[i];
            const auto node = root["adapters"][adapter_name]["egress"]["providers"][i];
            const auto where = "adapters." + adapter_name + ".egress.providers";
            for (const auto& [field, name] : planned_names(route)) {
                const bool forbidden = std::find(config.forbidden_env.begin(), config.forbidden_env.end(), name) !=
                                       config.forbidden_env.end();
                if (forbidden) {
                    r.error_at(node[field], where + "." + field,
                               name + " is listed in sandbox.forbidden_env (an application master secret)");
                }
                if (name == config.mcp_token_env) {
                    r.error_at(node[field], where + "." + field, name + " is also sandbox.mcp_token_env");
                }
            }
        }
    }
}

// Runs after parsing succeeded, so every node looked up here exists; the
// error points at the offending entry's own line.
void check_grants_against_hidden(const ConfigReader& r, const Node& root, const Config& config)
{
    auto hidden = config.hidden_paths;
    hidden.push_back(config.data_dir);
    auto check = [&](const Node& node, const std::string& grant, const std::string& key) {
        // The sandbox mounts its own /proc, /dev and /tmp over these.
        for (const auto* reserved : {"/proc", "/dev", "/tmp"}) {
            if (path_is_within(grant, reserved)) {
                r.error_at(node, key,
                           "read-only grant " + grant + " lies inside " + reserved +
                               ", which the sandbox provides itself");
            }
        }
        for (const auto& absent : hidden) {
            if (paths_overlap(grant, absent)) {
                r.error_at(node, key,
                           "read-only grant " + grant + " overlaps the path " + absent +
                               " that sessions must never see");
            }
        }
    };
    const auto sandbox_grants = root["sandbox"]["read_only_paths"];
    for (std::size_t i = 0; i < config.read_only_paths.size(); ++i) {
        check(sandbox_grants[i], config.read_only_paths[i], "sandbox.read_only_paths");
    }
    for (const auto& [name, profile] : config.adapters) {
        const auto node = root["adapters"][name];
        const auto grants = node["read_only_paths"];
        for (std::size_t i = 0; i < profile.read_only_paths.size(); ++i) {
            check(grants[i], profile.read_only_paths[i], "adapters." + name + ".read_only_paths");
        }
        check(node["executable"], profile.executable, "adapters." + name + ".executable");
    }
}

// A provider session directory is mounted read-write for its owner. One
// below a read-only grant would be shadowed or re-exposed by it, and one
// that contains a grant would mount every owner's copy of the granted path
// writable (and a grant below an owner's directory mounts that owner's
// files into every session). Checked against every grant, whichever adapter
// it belongs to; runs after parsing, so every node looked up here exists.
void check_session_dirs_against_grants(const ConfigReader& r, const Node& root, const Config& config)
{
    std::vector<std::pair<std::string, std::string>> grants; // path, where it was granted
    for (const auto& grant : config.read_only_paths) {
        grants.emplace_back(grant, "sandbox.read_only_paths");
    }
    for (const auto& [name, profile] : config.adapters) {
        for (const auto& grant : profile.read_only_paths) {
            grants.emplace_back(grant, "adapters." + name + ".read_only_paths");
        }
    }
    for (const auto& [name, profile] : config.adapters) {
        const auto nodes = root["adapters"][name]["session_dirs"];
        for (std::size_t i = 0; i < profile.session_dirs.size(); ++i) {
            const auto& path_template = profile.session_dirs[i];
            for (const auto& [grant, where] : grants) {
                if (!owner_template_overlaps(path_template, grant)) {
                    continue;
                }
                r.error_at(nodes[i], "adapters." + name + ".session_dirs",
                           "session directory " + path_template + " lies under or contains the read-only grant " +
                               grant + " (" + where + ")");
            }
        }
    }
}

// Checked once every adapter is read: the union is what sessions get.
void merge_owner_protection(const ConfigReader& r, const Node& root, Config& config)
{
    std::vector<std::vector<ProtectedPath>> lists;
    for (const auto& [name, profile] : config.adapters) {
        lists.push_back(profile.protected_home_paths);
    }
    try {
        config.protected_home_paths = merge_protected_paths(lists);
    } catch (const Error& e) {
        r.error_at(root["adapters"], "adapters",
                   std::string("the protected_home_paths of all adapters together: ") + e.what());
    }
}

} // namespace nr::core::config_sections
