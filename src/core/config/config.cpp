#include "core/config/config.h"

#include "core/base/app_unit_name.h"
#include "core/base/error.h"
#include "core/base/ids.h"
#include "core/base/path_policy.h"
#include "core/config/config_reader.h"
#include "core/config/env_names.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <set>

// One function per section of the file; the reader (core/config/config_reader.h)
// does the strict YAML part, and the checks at the end look across sections.
namespace nr::core {

namespace {

using Node = YAML::Node;
using Key = std::string;

constexpr std::string_view kOwnerPlaceholder = "{owner}";
constexpr std::uint64_t kMaxTasks = 1U << 22U;
constexpr std::uint64_t kMaxSeconds = 365ULL * 24 * 3600;
// The longest field the gateway's control message carries (core/gateway/egress.cpp).
constexpr std::size_t kMaxEgressField = 255;

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

// A request setting a forbidden name is refused whatever the profile says,
// so listing one is always a mistake, and for the TLS-weakening names a
// dangerous one: say so when the config is loaded, not on the first request.
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

std::vector<std::string> read_app_units(const ConfigReader& r, const Node& node, const Key& key)
{
    auto units = r.string_list(node, key);
    for (std::size_t i = 0; i < units.size(); ++i) {
        try {
            validate_app_unit_name(units[i]);
        } catch (const Error& e) {
            r.error_at(node[i], key, e.what());
        }
    }
    return units;
}

CallerPolicy read_callers(const ConfigReader& r, const Node& node, const Key& key)
{
    CallerPolicy callers;
    r.for_each_key(node, key,
                   {
                       {"users", r.assign(callers.users, &ConfigReader::string_list)},
                       {"groups", r.assign(callers.groups, &ConfigReader::string_list)},
                       {"run_as_users", r.assign(callers.run_as_users, &ConfigReader::string_list)},
                   });
    return callers;
}

void read_sandbox(const ConfigReader& r, const Node& node, const Key& key, Config& config)
{
    r.for_each_key(node, key,
                   {
                       {"read_only_paths", r.assign(config.read_only_paths, &ConfigReader::path_list)},
                       {"hidden_paths", r.assign(config.hidden_paths, &ConfigReader::path_list)},
                       {"mcp_token_env", r.assign(config.mcp_token_env, &ConfigReader::scalar)},
                       {"forbidden_env", r.assign(config.forbidden_env, &ConfigReader::string_list)},
                       {"proxy_env", r.assign(config.proxy_env, &ConfigReader::boolean)},
                       {"allowed_addresses", r.assign(config.allowed_addresses, &ConfigReader::address_list)},
                   });
}

// Applies the keys present on top of `limits` (the defaults, or for an
// adapter the global limits).
void read_limits(const ConfigReader& r, const Node& node, const Key& key, SessionLimits& limits)
{
    r.for_each_key(node, key,
                   {
                       {"memory_max", r.assign(limits.memory_max_bytes, &ConfigReader::byte_size)},
                       {"tasks_max", r.assign(limits.tasks_max, kMaxTasks)},
                       {"cpu_quota_percent", r.assign(limits.cpu_quota_percent, 100000)},
                       {"runtime_max_sec", r.assign(limits.runtime_max_sec, kMaxSeconds)},
                       {"tmp_size", r.assign(limits.tmp_size_bytes, &ConfigReader::byte_size)},
                   });
    if (limits.memory_max_bytes == 0 || limits.tasks_max == 0 || limits.cpu_quota_percent == 0 ||
        limits.runtime_max_sec == 0 || limits.tmp_size_bytes == 0) {
        r.error_at(node, key, "limits must be greater than zero");
    }
}

OwnerLimits read_owner_limits(const ConfigReader& r, const Node& node, const Key& key)
{
    OwnerLimits limits;
    r.for_each_key(node, key,
                   {
                       {"memory_max", r.assign(limits.memory_max_bytes, &ConfigReader::byte_size)},
                       {"tasks_max", r.assign(limits.tasks_max, kMaxTasks)},
                   });
    if (limits.memory_max_bytes == 0U || limits.tasks_max == 0U) {
        r.error_at(node, key, "limits must be greater than zero");
    }
    return limits;
}

FileOperations read_files(const ConfigReader& r, const Node& node, const Key& key)
{
    FileOperations files;
    r.for_each_key(node, key,
                   {
                       {"max_size",
                        [&](const Node& n, const Key& k) {
                            files.max_bytes = r.byte_size(n, k);
                            if (files.max_bytes == 0) {
                                r.error_at(n, k, "must be greater than zero");
                            }
                        }},
                       {"receipt_key", r.assign(files.receipt_key, &ConfigReader::absolute_path)},
                       {"receipt_ttl_sec",
                        [&](const Node& n, const Key& k) {
                            files.receipt_ttl_sec = r.unsigned_number(n, k, kMaxSeconds);
                            if (files.receipt_ttl_sec == 0) {
                                r.error_at(n, k, "must be greater than zero");
                            }
                        }},
                   });
    return files;
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

// RFC 9110 token characters: what a header name (and an auth scheme) is
// made of; anything else could split or smuggle a header.
bool is_http_token(std::string_view text)
{
    constexpr std::string_view kSpecials = "!#$%&'*+-.^_`|~";
    return !text.empty() && text.size() <= kMaxEgressField && std::all_of(text.begin(), text.end(), [&](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
               kSpecials.find(c) != std::string_view::npos;
    });
}

// Named like systemd credentials the gateway's unit loads.
bool is_credential_name(std::string_view name)
{
    return !name.empty() && name.size() <= kMaxEgressField && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
               c == '-';
    });
}

// Appended to the base URL as is: a path of plain characters, so it can
// neither leave the host's prefix nor add a query.
bool is_base_path(std::string_view path)
{
    if (path.empty()) {
        return true;
    }
    if (path.front() != '/' || path.size() > kMaxEgressField || path.find("//") != std::string_view::npos ||
        path.find("/./") != std::string_view::npos || path.find("/../") != std::string_view::npos ||
        path.ends_with("/..") || path.ends_with("/.")) {
        return false;
    }
    return std::all_of(path.begin(), path.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '/' || c == '_' ||
               c == '.' || c == '-' || c == '~';
    });
}

std::string egress_host(const ConfigReader& r, const Node& node, const Key& key)
{
    auto host = r.scalar(node, key);
    try {
        check_egress_host(host);
    } catch (const std::invalid_argument& e) {
        r.error_at(node, key, host + ": " + e.what());
    }
    return host;
}

// A variable the plan sets to the placeholder or the base URL: a name no
// request, profile or computed value may also claim.
std::string planned_env_name(const ConfigReader& r, const Node& node, const Key& key)
{
    auto name = r.scalar(node, key);
    if (!is_valid_env_name(name)) {
        r.error_at(node, key, "expected an environment variable name ([A-Za-z_][A-Za-z0-9_]*): " + name);
    }
    if (is_computed_env_name(name)) {
        r.error_at(node, key, name + " is computed by the planner for every session");
    }
    refuse_forbidden_credential_name(r, node, key, name);
    return name;
}

ProviderRoute read_provider(const ConfigReader& r, const Node& node, const Key& key)
{
    ProviderRoute route;
    r.for_each_key(
        node, key,
        {
            {"host", [&](const Node& n, const Key& k) { route.host = egress_host(r, n, k); }},
            {"credential",
             [&](const Node& n, const Key& k) {
                 route.credential = r.scalar(n, k);
                 if (!is_credential_name(route.credential)) {
                     r.error_at(n, k, "expected a credential name from [A-Za-z0-9_.-]");
                 }
             }},
            {"header",
             [&](const Node& n, const Key& k) {
                 route.header = r.scalar(n, k);
                 if (!is_http_token(route.header)) {
                     r.error_at(n, k, "expected an HTTP header name: " + route.header);
                 }
             }},
            {"scheme",
             [&](const Node& n, const Key& k) {
                 route.scheme = r.scalar(n, k);
                 if (!route.scheme.empty() && !is_http_token(route.scheme)) {
                     r.error_at(n, k, "expected an authentication scheme such as Bearer, or \"\"");
                 }
             }},
            {"key_env", [&](const Node& n, const Key& k) { route.key_env = planned_env_name(r, n, k); }},
            {"base_url_env", [&](const Node& n, const Key& k) { route.base_url_env = planned_env_name(r, n, k); }},
            {"base_path",
             [&](const Node& n, const Key& k) {
                 route.base_path = r.scalar(n, k);
                 if (!is_base_path(route.base_path)) {
                     r.error_at(n, k, "expected empty or a path such as /v1: " + route.base_path);
                 }
             }},
        });
    for (const auto* required : {"host", "credential", "key_env", "base_url_env"}) {
        if (!node[required]) {
            r.error_at(node, key + "." + required, "missing required key");
        }
    }
    return route;
}

EgressPolicy read_egress(const ConfigReader& r, const Node& node, const Key& key)
{
    EgressPolicy egress;
    r.for_each_key(node, key,
                   {
                       {"allow_hosts",
                        [&](const Node& n, const Key& k) {
                            if (!n.IsSequence()) {
                                r.error_at(n, k, "expected a list");
                            }
                            for (const auto& item : n) {
                                auto host = egress_host(r, item, k);
                                if (std::find(egress.allow_hosts.begin(), egress.allow_hosts.end(), host) !=
                                    egress.allow_hosts.end()) {
                                    r.error_at(item, k, host + " is listed twice");
                                }
                                egress.allow_hosts.push_back(std::move(host));
                            }
                        }},
                       {"allow_addresses", r.assign(egress.allow_addresses, &ConfigReader::address_list)},
                       {"providers",
                        [&](const Node& n, const Key& k) {
                            if (!n.IsSequence()) {
                                r.error_at(n, k, "expected a list");
                            }
                            for (const auto& item : n) {
                                egress.providers.push_back(read_provider(r, item, k));
                            }
                        }},
                   });
    return egress;
}

// The variables a provider entry has the plan set, by their key.
std::array<std::pair<std::string, std::string>, 2> planned_names(const ProviderRoute& route)
{
    return {{{"key_env", route.key_env}, {"base_url_env", route.base_url_env}}};
}

// Each provider's host must be allowed (the gateway forwards nowhere else),
// routes one host once, and every planned variable is set once and is never
// also a name the worker may pass: the real key must not reach a session
// as a credential beside the placeholder.
void check_egress(const ConfigReader& r, const Node& node, const Key& key, const AdapterProfile& profile)
{
    std::set<std::string> hosts;
    std::set<std::string> names;
    const auto providers = node["providers"];
    for (std::size_t i = 0; i < profile.egress.providers.size(); ++i) {
        const auto& route = profile.egress.providers[i];
        const auto item = providers[i];
        const auto where = key + ".providers";
        if (std::find(profile.egress.allow_hosts.begin(), profile.egress.allow_hosts.end(), route.host) ==
            profile.egress.allow_hosts.end()) {
            r.error_at(item["host"], where + ".host", route.host + " is not in " + key + ".allow_hosts");
        }
        if (!hosts.insert(route.host).second) {
            r.error_at(item["host"], where + ".host", route.host + " has a provider already");
        }
        for (const auto& [field, name] : planned_names(route)) {
            if (!names.insert(name).second) {
                r.error_at(item[field], where + "." + field, name + " is set by another provider entry already");
            }
            if (std::find(profile.credential_env.begin(), profile.credential_env.end(), name) !=
                profile.credential_env.end()) {
                r.error_at(item[field], where + "." + field,
                           name + " is also in credential_env: the gateway sets it, a worker may not pass it");
            }
        }
    }
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

// A budget is a request count or `none` (also 0): no budget at all. In
// `owners`, `none` exempts that owner from `per_owner`.
std::uint64_t read_budget_count(const ConfigReader& r, const Node& node, const Key& key)
{
    const auto text = r.scalar(node, key);
    if (text == "none") {
        return 0;
    }
    std::uint64_t value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end || value > kMaxRequestBudget) {
        r.error_at(node, key,
                   "expected a number of requests up to " + std::to_string(kMaxRequestBudget) +
                       ", or none for no budget");
    }
    return value;
}

// `owners` maps owner ids, which the operator chooses, to budgets.
RequestBudgetSettings read_request_budget(const ConfigReader& r, const Node& node, const Key& key)
{
    RequestBudgetSettings budget;
    r.for_each_key(
        node, key,
        {
            {"window_sec",
             [&](const Node& n, const Key& k) {
                 budget.window_sec = r.unsigned_number(n, k, kMaxBudgetWindowSec);
                 if (budget.window_sec == 0) {
                     r.error_at(n, k, "must be 1 to " + std::to_string(kMaxBudgetWindowSec));
                 }
             }},
            {"per_owner", [&](const Node& n, const Key& k) { budget.per_owner = read_budget_count(r, n, k); }},
            {"owners",
             [&](const Node& n, const Key& k) {
                 read_id_map(r, n, k, IdKind::Owner, "a mapping of owner ids to request counts", budget.owners,
                             [&r](const Node& value, const Key& where, const std::string&) {
                                 return read_budget_count(r, value, where);
                             });
             }},
        });
    return budget;
}

// The limits that depend on each other are checked once all are read, as
// they may come in any order; the error names the key the operator set
// (a default cannot be the mistake when the other key is also default).
void check_gateway_limits(const ConfigReader& r, const Node& node, const Key& key, const GatewaySettings& gateway)
{
    const auto set_one = [&node](const char* first, const char* otherwise) { return node[first] ? first : otherwise; };
    if (gateway.max_tunnels_per_session > gateway.max_connections_per_session) {
        const auto* name = set_one("max_tunnels_per_session", "max_connections_per_session");
        r.error_at(node[name], key + "." + name,
                   "max_tunnels_per_session (" + std::to_string(gateway.max_tunnels_per_session) +
                       ") must be at most max_connections_per_session (" +
                       std::to_string(gateway.max_connections_per_session) + "): a tunnel is a connection");
    }
    if (!buffered_bytes_fit_header(gateway.max_buffered_bytes_per_session, gateway.max_header_bytes)) {
        const auto* name = set_one("max_buffered_bytes_per_session", "max_header_bytes");
        r.error_at(node[name], key + "." + name,
                   "max_buffered_bytes_per_session (" + std::to_string(gateway.max_buffered_bytes_per_session) +
                       ") must be at least max_header_bytes (" + std::to_string(gateway.max_header_bytes) + ") + " +
                       std::to_string(kBufferedBytesBeyondHeader >> 10U) + "K, or no request fits");
    }
}

GatewaySettings read_gateway(const ConfigReader& r, const Node& node, const Key& key)
{
    GatewaySettings gateway;
    const auto positive_size = [&](std::uint64_t& field) {
        return [&r, &field](const Node& n, const Key& k) {
            field = r.byte_size(n, k);
            if (field == 0) {
                r.error_at(n, k, "must be greater than zero");
            }
        };
    };
    const auto from_one_to = [&](std::uint64_t& field, std::uint64_t max) {
        return [&r, &field, max](const Node& n, const Key& k) {
            field = r.unsigned_number(n, k, max);
            if (field == 0) {
                r.error_at(n, k, "must be 1 to " + std::to_string(max));
            }
        };
    };
    r.for_each_key(
        node, key,
        {
            {"port",
             [&](const Node& n, const Key& k) {
                 gateway.port = static_cast<std::uint16_t>(r.unsigned_number(n, k, 65535));
                 if (gateway.port == 0) {
                     r.error_at(n, k, "must be a port from 1 to 65535");
                 }
             }},
            {"max_header_bytes", positive_size(gateway.max_header_bytes)},
            {"max_request_bytes", positive_size(gateway.max_request_bytes)},
            {"max_response_bytes", positive_size(gateway.max_response_bytes)},
            {"control_socket", r.assign(gateway.control_socket, &ConfigReader::absolute_path)},
            {"request_budget",
             [&](const Node& n, const Key& k) { gateway.request_budget = read_request_budget(r, n, k); }},
            {"max_connections_per_session", from_one_to(gateway.max_connections_per_session, kMaxConnectionsLimit)},
            {"max_tunnels_per_session", from_one_to(gateway.max_tunnels_per_session, kMaxTunnelsLimit)},
            {"max_buffered_bytes_per_session",
             [&](const Node& n, const Key& k) {
                 gateway.max_buffered_bytes_per_session = r.byte_size(n, k);
                 if (gateway.max_buffered_bytes_per_session > kMaxBufferedBytesLimit) {
                     r.error_at(n, k, "must be at most 1G");
                 }
             }},
            {"header_timeout_sec", from_one_to(gateway.header_timeout_sec, kMaxHeaderTimeoutSec)},
            {"idle_timeout_sec", from_one_to(gateway.idle_timeout_sec, kMaxIdleTimeoutSec)},
        });
    check_gateway_limits(r, node, key, gateway);
    return gateway;
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

// The keys of `adapters` are adapter names the operator chooses.
void read_adapters(const ConfigReader& r, const Node& node, const Key& key, Config& config)
{
    read_id_map(r, node, key, IdKind::Adapter, "a mapping of adapter names to profiles", config.adapters,
                [&r](const Node& n, const Key& k, const std::string& name) { return read_adapter(r, n, k, name); });
}

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

namespace {

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
            {"idle_timeout_sec", r.assign(config.idle_timeout_sec, 86400)},
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
    check_forbidden_env(r, root, config);
    merge_owner_protection(r, root, config);
    // An adapter's limits apply over the global ones, which may come later
    // in the file, so they are read once everything else is.
    for (auto& [name, profile] : config.adapters) {
        if (const auto node = root["adapters"][name]["limits"]) {
            SessionLimits limits = config.limits;
            read_limits(r, node, "adapters." + name + ".limits", limits);
            profile.limits = limits;
        }
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
