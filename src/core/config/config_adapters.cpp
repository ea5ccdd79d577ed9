// SPDX-License-Identifier: Apache-2.0
#include "core/config/config_sections.h"

#include "core/base/path_policy.h"
#include "core/config/env_names.h"

// `adapters`: one profile per adapter name, with the keys only a profile
// has (credentials, session directories, protected home paths, network,
// host login).
namespace nr::core::config_sections {

namespace {

void validate_session_dir_template(const ConfigReader& r, const Node& node, const Key& key,
                                   const std::string& path_template)
{
    const auto first = path_template.find(kOwnerPlaceholder);
    if (first == std::string::npos || path_template.find(kOwnerPlaceholder, first + 1) != std::string::npos) {
        r.error_at(node, key, "must contain {owner} exactly once: " + path_template);
    }
    try {
        validate_absolute_path(expand_owner_template(path_template, "owner"), key);
    } catch (const Error& e) {
        r.error_at(node, key, e.what());
    }
}

// Checked entry by entry, so that a refusal points at the entry's own line,
// also for the rules across entries (listed twice, one beneath another,
// one too many).
ConfigReader::Handler read_protected_home_paths(const ConfigReader& r, std::vector<ProtectedPath>& paths)
{
    return [&r, &paths](const Node& node, const Key& key) {
        const auto entries = r.string_list(node, key);
        for (std::size_t i = 0; i < entries.size(); ++i) {
            try {
                paths.push_back(parse_protected_path(entries[i]));
                check_protected_paths(paths);
            } catch (const Error& e) {
                r.error_at(node[i], key, e.what());
            }
        }
    };
}

HostAuth read_host_auth(const ConfigReader& r, const Node& node, const Key& key)
{
    HostAuth host_auth;
    r.for_each_key(
        node, key,
        {
            {"admission",
             [&](const Node& n, const Key& k) {
                 host_auth.admission = r.second_choice(n, k, "serial", "client-managed") ? AdmissionMode::ClientManaged
                                                                                         : AdmissionMode::Serial;
             }},
            {"group",
             [&](const Node& n, const Key& k) {
                 host_auth.group = r.scalar(n, k);
                 try {
                     validate_id(IdKind::Adapter, host_auth.group);
                 } catch (const Error&) {
                     r.error_at(n, k, "expected 1-64 characters from [A-Za-z0-9._@-], starting with a letter or digit");
                 }
             }},
        });
    return host_auth;
}

NetworkMode read_network(const ConfigReader& r, const Node& node, const Key& key)
{
    const auto text = r.scalar(node, key);
    if (text == "host") {
        return NetworkMode::Host;
    }
    if (text == "offline") {
        return NetworkMode::Offline;
    }
    if (text == "gateway") {
        return NetworkMode::Gateway;
    }
    r.error_at(node, key, "expected host, offline or gateway");
}

AdapterProfile read_adapter(const ConfigReader& r, const Node& node, const Key& key, const std::string& name)
{
    AdapterProfile profile;
    profile.name = name;
    r.for_each_key(node, key,
                   {
                       {"executable", r.assign(profile.executable, &ConfigReader::absolute_path)},
                       {"read_only_paths", r.assign(profile.read_only_paths, &ConfigReader::path_list)},
                       {"credential_env",
                        [&](const Node& n, const Key& k) {
                            profile.credential_env = r.string_list(n, k);
                            for (std::size_t i = 0; i < profile.credential_env.size(); ++i) {
                                refuse_forbidden_credential_name(r, n[i], k, profile.credential_env[i]);
                            }
                        }},
                       {"session_dirs",
                        [&](const Node& n, const Key& k) {
                            profile.session_dirs = r.string_list(n, k);
                            for (std::size_t i = 0; i < profile.session_dirs.size(); ++i) {
                                validate_session_dir_template(r, n[i], k, profile.session_dirs[i]);
                            }
                        }},
                       {"protected_home_paths", read_protected_home_paths(r, profile.protected_home_paths)},
                       {"network", [&](const Node& n, const Key& k) { profile.network = read_network(r, n, k); }},
                       {"egress", [&](const Node& n, const Key& k) { profile.egress = read_egress(r, n, k); }},
                       {"limits", [](const Node&, const Key&) {}}, // read in parse_config, over the global limits
                       {"nested_userns", r.assign(profile.nested_userns, &ConfigReader::boolean)},
                       {"on_worker_disconnect",
                        [&](const Node& n, const Key& k) {
                            profile.keep_on_worker_disconnect = r.second_choice(n, k, "stop", "keep");
                        }},
                       {"host_auth", [&](const Node& n, const Key& k) { profile.host_auth = read_host_auth(r, n, k); }},
                   });
    if (profile.executable.empty()) { // a path read is never empty
        r.error_at(node, key + ".executable", "missing required key");
    }
    if (const auto egress = node["egress"]) {
        // Without the gateway nothing would enforce it: refused rather than
        // read as a policy that is not in effect.
        if (profile.network != NetworkMode::Gateway) {
            r.error_at(egress, key + ".egress", "only adapters with network: gateway have an egress policy");
        }
        check_egress(r, egress, key + ".egress", profile);
    }
    return profile;
}

} // namespace

void refuse_forbidden_credential_name(const ConfigReader& r, const Node& node, const Key& key, const std::string& name)
{
    if (is_tls_weakening_env_name(name)) {
        r.error_at(node, key, name + " weakens TLS verification and may never be passed to a session");
    }
    if (is_proxy_env_name(name)) {
        r.error_at(node, key, name + " is a proxy variable; sandbox.proxy_env decides whether sessions get those");
    }
    if (is_forbidden_env_name(name)) {
        r.error_at(node, key, name + " is a forbidden environment name (like LD_*) and may never be passed");
    }
}

// The keys of `adapters` are adapter names the operator chooses.
void read_adapters(const ConfigReader& r, const Node& node, const Key& key, Config& config)
{
    read_id_map(r, node, key, IdKind::Adapter, "a mapping of adapter names to profiles", config.adapters,
                [&r](const Node& n, const Key& k, const std::string& name) { return read_adapter(r, n, k, name); });
}

} // namespace nr::core::config_sections
