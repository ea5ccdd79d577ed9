#include "core/config.h"

#include "core/dropin.h"
#include "core/env_policy.h"
#include "core/error.h"
#include "core/ids.h"
#include "core/path_policy.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

namespace nr::core {

namespace {

class ConfigReader {
public:
    explicit ConfigReader(std::string_view source) : source_(source) {}

    [[noreturn]] void error_at(const YAML::Node& node, const std::string& key, const std::string& problem) const
    {
        const auto line = node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
        fail(ErrorKind::ConfigInvalid, source_ + ":" + std::to_string(line) + ": " + key + ": " + problem);
    }

    // Visits every key of a mapping, refusing keys the schema does not know.
    void for_each_key(
        const YAML::Node& map, const std::string& where,
        const std::map<std::string, std::function<void(const YAML::Node&, const std::string&)>>& handlers) const
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

    // Mapping keys must be plain strings; a complex key ("? [a, b]") would
    // otherwise escape as a yaml-cpp conversion error.
    std::string key_of(const YAML::Node& key, const std::string& where) const
    {
        if (!key.IsScalar()) {
            error_at(key, where.empty() ? "<top>" : where, "keys must be strings");
        }
        return key.Scalar();
    }

    std::string scalar(const YAML::Node& node, const std::string& key) const
    {
        if (!node.IsScalar()) {
            error_at(node, key, "expected a string");
        }
        return node.Scalar();
    }

    std::string absolute_path(const YAML::Node& node, const std::string& key) const
    {
        auto value = scalar(node, key);
        try {
            validate_absolute_path(value, key);
        } catch (const Error& e) {
            error_at(node, key, e.what());
        }
        return value;
    }

    std::vector<std::string> string_list(const YAML::Node& node, const std::string& key) const
    {
        if (!node.IsSequence()) {
            error_at(node, key, "expected a list");
        }
        std::vector<std::string> out;
        for (const auto& item : node) {
            out.push_back(scalar(item, key));
        }
        return out;
    }

    std::vector<std::string> path_list(const YAML::Node& node, const std::string& key) const
    {
        if (!node.IsSequence()) {
            error_at(node, key, "expected a list");
        }
        std::vector<std::string> out;
        for (const auto& item : node) {
            out.push_back(absolute_path(item, key));
        }
        return out;
    }

    std::vector<IpPrefix> address_list(const YAML::Node& node, const std::string& key) const
    {
        if (!node.IsSequence()) {
            error_at(node, key, "expected a list");
        }
        std::vector<IpPrefix> out;
        for (const auto& item : node) {
            try {
                out.push_back(parse_ip_prefix(scalar(item, key)));
            } catch (const std::invalid_argument& e) {
                error_at(item, key, e.what());
            }
        }
        return out;
    }

    std::uint64_t unsigned_number(const YAML::Node& node, const std::string& key, std::uint64_t max) const
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

    std::uint64_t byte_size(const YAML::Node& node, const std::string& key) const
    {
        try {
            return parse_byte_size(scalar(node, key));
        } catch (const std::invalid_argument&) {
            error_at(node, key, "expected a size such as 512M or 2G");
        }
    }

    bool boolean(const YAML::Node& node, const std::string& key) const
    {
        const auto text = scalar(node, key);
        if (text == "true") {
            return true;
        }
        if (text == "false") {
            return false;
        }
        error_at(node, key, "expected true or false");
    }

    [[nodiscard]] const std::string& source() const { return source_; }

private:
    std::string source_;
};

constexpr std::string_view kOwnerPlaceholder = "{owner}";

void validate_session_dir_template(const ConfigReader& r, const YAML::Node& node, const std::string& key,
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

// A request setting a forbidden name is refused whatever the profile says,
// so listing one is always a mistake, and for the TLS-weakening names a
// dangerous one: say so when the config is loaded, not on the first request.
void refuse_forbidden_credential_name(const ConfigReader& r, const YAML::Node& node, const std::string& key,
                                      const std::string& name)
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

AdapterProfile parse_adapter(const ConfigReader& r, const YAML::Node& node, const std::string& key,
                             const std::string& name, std::optional<YAML::Node>& limits_node)
{
    AdapterProfile profile;
    profile.name = name;
    bool has_executable = false;
    r.for_each_key(
        node, key,
        {
            {"executable",
             [&](const YAML::Node& n, const std::string& k) {
                 profile.executable = r.absolute_path(n, k);
                 has_executable = true;
             }},
            {"read_only_paths",
             [&](const YAML::Node& n, const std::string& k) { profile.read_only_paths = r.path_list(n, k); }},
            {"credential_env",
             [&](const YAML::Node& n, const std::string& k) {
                 profile.credential_env = r.string_list(n, k);
                 for (std::size_t i = 0; i < profile.credential_env.size(); ++i) {
                     refuse_forbidden_credential_name(r, n[i], k, profile.credential_env[i]);
                 }
             }},
            {"session_dirs",
             [&](const YAML::Node& n, const std::string& k) {
                 profile.session_dirs = r.string_list(n, k);
                 for (std::size_t i = 0; i < profile.session_dirs.size(); ++i) {
                     validate_session_dir_template(r, n[i], k, profile.session_dirs[i]);
                 }
             }},
            {"network",
             [&](const YAML::Node& n, const std::string& k) {
                 const auto mode = r.scalar(n, k);
                 if (mode == "host") {
                     profile.network = NetworkMode::Host;
                 } else if (mode == "offline") {
                     profile.network = NetworkMode::Offline;
                 } else {
                     r.error_at(n, k, "expected host or offline");
                 }
             }},
            {"limits", [&](const YAML::Node& n, const std::string& /*k*/) { limits_node = n; }},
            {"nested_userns",
             [&](const YAML::Node& n, const std::string& k) { profile.nested_userns = r.boolean(n, k); }},
            {"on_worker_disconnect",
             [&](const YAML::Node& n, const std::string& k) {
                 const auto choice = r.scalar(n, k);
                 if (choice != "stop" && choice != "keep") {
                     r.error_at(n, k, "expected stop or keep");
                 }
                 profile.keep_on_worker_disconnect = choice == "keep";
             }},
            {"host_auth",
             [&](const YAML::Node& n, const std::string& k) { profile.host_auth = parse_host_auth(n, k, r.source()); }},
        });
    if (!has_executable) {
        r.error_at(node, key + ".executable", "missing required key");
    }
    return profile;
}

void parse_limits(const ConfigReader& r, const YAML::Node& node, const std::string& key, SessionLimits& limits)
{
    constexpr std::uint64_t kMaxTasks = 1U << 22U;
    constexpr std::uint64_t kMaxCpuPercent = 100000;
    constexpr std::uint64_t kMaxRuntime = 365ULL * 24 * 3600;
    r.for_each_key(
        node, key,
        {
            {"memory_max",
             [&](const YAML::Node& n, const std::string& k) { limits.memory_max_bytes = r.byte_size(n, k); }},
            {"tasks_max",
             [&](const YAML::Node& n, const std::string& k) { limits.tasks_max = r.unsigned_number(n, k, kMaxTasks); }},
            {"cpu_quota_percent",
             [&](const YAML::Node& n, const std::string& k) {
                 limits.cpu_quota_percent = static_cast<std::uint32_t>(r.unsigned_number(n, k, kMaxCpuPercent));
             }},
            {"runtime_max_sec",
             [&](const YAML::Node& n, const std::string& k) {
                 limits.runtime_max_sec = r.unsigned_number(n, k, kMaxRuntime);
             }},
            {"tmp_size", [&](const YAML::Node& n, const std::string& k) { limits.tmp_size_bytes = r.byte_size(n, k); }},
        });
    if (limits.memory_max_bytes == 0 || limits.tasks_max == 0 || limits.cpu_quota_percent == 0 ||
        limits.runtime_max_sec == 0 || limits.tmp_size_bytes == 0) {
        r.error_at(node, key, "limits must be greater than zero");
    }
}

void parse_owner_limits(const ConfigReader& r, const YAML::Node& node, const std::string& key, OwnerLimits& limits)
{
    constexpr std::uint64_t kMaxTasks = 1U << 22U;
    r.for_each_key(
        node, key,
        {
            {"memory_max",
             [&](const YAML::Node& n, const std::string& k) { limits.memory_max_bytes = r.byte_size(n, k); }},
            {"tasks_max",
             [&](const YAML::Node& n, const std::string& k) { limits.tasks_max = r.unsigned_number(n, k, kMaxTasks); }},
        });
    if (limits.memory_max_bytes == 0U || limits.tasks_max == 0U) {
        r.error_at(node, key, "limits must be greater than zero");
    }
}

// Runs after parsing succeeded, so every node looked up here exists; the
// error points at the offending entry's own line.
void check_grants_against_hidden(const ConfigReader& r, const YAML::Node& root, const Config& config)
{
    auto hidden = config.hidden_paths;
    hidden.push_back(config.data_dir);
    auto check = [&](const YAML::Node& node, const std::string& grant, const std::string& key) {
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
void check_session_dirs_against_grants(const ConfigReader& r, const YAML::Node& root, const Config& config)
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

std::optional<YAML::Mark> second_document_start(std::string_view yaml_text)
{
    std::istringstream in{std::string(yaml_text)};
    YAML::Parser parser(in);
    DocumentCounter counter;
    if (!parser.HandleNextDocument(counter) || !parser.HandleNextDocument(counter)) {
        return std::nullopt;
    }
    return counter.last_start;
}

} // namespace

std::string expand_owner_template(const std::string& path_template, const std::string& owner)
{
    auto path = path_template;
    const auto at = path.find(kOwnerPlaceholder);
    if (at != std::string::npos) {
        path.replace(at, kOwnerPlaceholder.size(), owner);
    }
    return path;
}

bool owner_template_overlaps(const std::string& path_template, const std::string& path)
{
    const auto at = path_template.find(kOwnerPlaceholder);
    if (at == std::string::npos) {
        return paths_overlap(path_template, path);
    }
    // The components before the one holding {owner} are the same for every
    // owner; the owner can only vary that one component.
    const auto start = path_template.rfind('/', at);
    const auto end = path_template.find('/', at);
    const std::string parent = start == 0 ? "/" : path_template.substr(0, start);
    if (path_is_within(parent, path)) {
        return true; // every owner's directory lies within `path`
    }
    if (!path_is_within(path, parent)) {
        return false;
    }
    const auto rest = std::string_view(path).substr(parent == "/" ? 1 : parent.size() + 1);
    const auto component = rest.substr(0, rest.find('/'));
    const auto prefix = std::string_view(path_template).substr(start + 1, at - start - 1);
    const auto after = at + kOwnerPlaceholder.size();
    const auto suffix =
        std::string_view(path_template).substr(after, end == std::string::npos ? std::string::npos : end - after);
    if (component.size() <= prefix.size() + suffix.size() || !component.starts_with(prefix) ||
        !component.ends_with(suffix)) {
        return false;
    }
    const std::string owner(component.substr(prefix.size(), component.size() - prefix.size() - suffix.size()));
    try {
        validate_id(IdKind::Owner, owner);
    } catch (const Error&) {
        return false; // no owner's directory is named like that
    }
    return paths_overlap(expand_owner_template(path_template, owner), path);
}

std::uint64_t parse_byte_size(std::string_view text)
{
    if (text.empty()) {
        throw std::invalid_argument("empty size");
    }
    std::uint64_t multiplier = 1;
    switch (text.back()) {
    case 'K': multiplier = 1ULL << 10U; break;
    case 'M': multiplier = 1ULL << 20U; break;
    case 'G': multiplier = 1ULL << 30U; break;
    case 'T': multiplier = 1ULL << 40U; break;
    default: break;
    }
    if (multiplier != 1) {
        text.remove_suffix(1);
    }
    std::uint64_t value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end ||
        value > std::numeric_limits<std::uint64_t>::max() / multiplier) {
        throw std::invalid_argument("bad size");
    }
    return value * multiplier;
}

Config parse_config(std::string_view yaml_text, std::string_view source)
{
    ConfigReader r(source);
    YAML::Node loaded;
    std::optional<YAML::Mark> second_document;
    try {
        loaded = YAML::Load(std::string(yaml_text));
        second_document = second_document_start(yaml_text);
    } catch (const YAML::Exception& e) {
        fail(ErrorKind::ConfigInvalid,
             std::string(source) + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
    }
    // YAML::Load reads only the first document; a second one would otherwise
    // be dropped without a word.
    if (second_document) {
        fail(ErrorKind::ConfigInvalid, std::string(source) + ":" + std::to_string(second_document->line + 1) +
                                           ": <top>: expected a single YAML document");
    }
    const YAML::Node root = loaded;
    // The package ships config.yaml as a fully commented example: a file with
    // no settings at all is refused by name, so the operator knows what to do.
    if (!root.IsDefined() || root.IsNull()) {
        fail(ErrorKind::ConfigInvalid,
             std::string(source) + ":1: <top>: no settings (the file is empty or only comments): "
                                   "complete it, starting from the commented example, as configuration.md describes");
    }
    Config config;
    config.source = std::string(source);
    bool has_data_dir = false;
    bool has_callers = false;
    bool has_sandbox = false;
    bool has_adapters = false;
    // Adapter limits start from the global ones, which may come later in
    // the file, so they are applied once everything else is read.
    std::map<std::string, YAML::Node> adapter_limits;
    r.for_each_key(
        root, "",
        {
            {"data_dir",
             [&](const YAML::Node& n, const std::string& k) {
                 config.data_dir = r.absolute_path(n, k);
                 has_data_dir = true;
             }},
            {"bwrap", [&](const YAML::Node& n, const std::string& k) { config.bwrap_path = r.absolute_path(n, k); }},
            {"snapshot_dir",
             [&](const YAML::Node& n, const std::string& k) { config.snapshot_dir = r.absolute_path(n, k); }},
            {"app_units",
             [&](const YAML::Node& n, const std::string& k) {
                 config.app_units = r.string_list(n, k);
                 for (std::size_t i = 0; i < config.app_units.size(); ++i) {
                     try {
                         validate_app_unit_name(config.app_units[i]);
                     } catch (const Error& e) {
                         r.error_at(n[i], k, e.what());
                     }
                 }
             }},
            {"idle_timeout_sec",
             [&](const YAML::Node& n, const std::string& k) {
                 config.idle_timeout_sec = static_cast<std::uint32_t>(r.unsigned_number(n, k, 86400));
             }},
            {"path", [&](const YAML::Node& n, const std::string& k) { config.default_path = r.scalar(n, k); }},
            {"callers",
             [&](const YAML::Node& n, const std::string& k) {
                 has_callers = true;
                 r.for_each_key(
                     n, k,
                     {
                         {"users", [&](const YAML::Node& v,
                                       const std::string& kk) { config.callers.users = r.string_list(v, kk); }},
                         {"groups", [&](const YAML::Node& v,
                                        const std::string& kk) { config.callers.groups = r.string_list(v, kk); }},
                         {"run_as_users",
                          [&](const YAML::Node& v, const std::string& kk) {
                              config.callers.run_as_users = r.string_list(v, kk);
                          }},
                     });
             }},
            {"sandbox",
             [&](const YAML::Node& n, const std::string& k) {
                 has_sandbox = true;
                 r.for_each_key(
                     n, k,
                     {
                         {"read_only_paths",
                          [&](const YAML::Node& v, const std::string& kk) {
                              config.read_only_paths = r.path_list(v, kk);
                          }},
                         {"hidden_paths", [&](const YAML::Node& v,
                                              const std::string& kk) { config.hidden_paths = r.path_list(v, kk); }},
                         {"mcp_token_env",
                          [&](const YAML::Node& v, const std::string& kk) { config.mcp_token_env = r.scalar(v, kk); }},
                         {"forbidden_env", [&](const YAML::Node& v,
                                               const std::string& kk) { config.forbidden_env = r.string_list(v, kk); }},
                         {"proxy_env",
                          [&](const YAML::Node& v, const std::string& kk) { config.proxy_env = r.boolean(v, kk); }},
                         {"allowed_addresses",
                          [&](const YAML::Node& v, const std::string& kk) {
                              config.allowed_addresses = r.address_list(v, kk);
                          }},
                     });
             }},
            {"limits", [&](const YAML::Node& n, const std::string& k) { parse_limits(r, n, k, config.limits); }},
            {"owner_limits",
             [&](const YAML::Node& n, const std::string& k) { parse_owner_limits(r, n, k, config.owner_limits); }},
            {"files",
             [&](const YAML::Node& n, const std::string& k) {
                 r.for_each_key(n, k,
                                {
                                    {"max_size",
                                     [&](const YAML::Node& v, const std::string& kk) {
                                         config.files.max_bytes = r.byte_size(v, kk);
                                         if (config.files.max_bytes == 0) {
                                             r.error_at(v, kk, "must be greater than zero");
                                         }
                                     }},
                                    {"receipt_key",
                                     [&](const YAML::Node& v, const std::string& kk) {
                                         config.files.receipt_key = r.absolute_path(v, kk);
                                     }},
                                    {"receipt_ttl_sec",
                                     [&](const YAML::Node& v, const std::string& kk) {
                                         constexpr std::uint64_t kMaxTtl = 365ULL * 24 * 3600;
                                         config.files.receipt_ttl_sec = r.unsigned_number(v, kk, kMaxTtl);
                                         if (config.files.receipt_ttl_sec == 0) {
                                             r.error_at(v, kk, "must be greater than zero");
                                         }
                                     }},
                                });
             }},
            {"adapters",
             [&](const YAML::Node& n, const std::string& k) {
                 has_adapters = true;
                 if (!n.IsMap()) {
                     r.error_at(n, k, "expected a mapping of adapter names to profiles");
                 }
                 for (const auto& entry : n) {
                     const auto name = r.key_of(entry.first, k);
                     try {
                         validate_id(IdKind::Adapter, name);
                     } catch (const Error& e) {
                         r.error_at(entry.first, k + "." + name, e.what());
                     }
                     if (config.adapters.contains(name)) {
                         r.error_at(entry.first, k + "." + name, "duplicate key");
                     }
                     if (entry.second.IsNull()) {
                         r.error_at(entry.first, k + "." + name, "expected a value");
                     }
                     std::optional<YAML::Node> limits_node;
                     config.adapters[name] = parse_adapter(r, entry.second, k + "." + name, name, limits_node);
                     if (limits_node) {
                         adapter_limits[name] = *limits_node;
                     }
                 }
             }},
        });
    if (!has_data_dir) {
        r.error_at(root, "data_dir", "missing required key");
    }
    if (!has_callers) {
        r.error_at(root, "callers", "missing required key");
    }
    if (!has_sandbox || config.read_only_paths.empty()) {
        r.error_at(root, "sandbox.read_only_paths", "missing required key");
    }
    if (!has_adapters || config.adapters.empty()) {
        r.error_at(root, "adapters", "at least one adapter profile is required");
    }
    if (config.data_dir == "/") {
        r.error_at(root["data_dir"], "data_dir", "must not be /");
    }
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
    for (const auto& [name, node] : adapter_limits) {
        SessionLimits limits = config.limits;
        parse_limits(r, node, "adapters." + name + ".limits", limits);
        config.adapters.at(name).limits = limits;
    }
    // The snapshot dir is absent from every session: no grant, workspace or
    // session directory may overlap it.
    if (!config.snapshot_dir.empty() && std::find(config.hidden_paths.begin(), config.hidden_paths.end(),
                                                  config.snapshot_dir) == config.hidden_paths.end()) {
        config.hidden_paths.push_back(config.snapshot_dir);
    }
    check_grants_against_hidden(r, root, config);
    check_session_dirs_against_grants(r, root, config);
    return config;
}

} // namespace nr::core
