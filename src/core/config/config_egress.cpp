// SPDX-License-Identifier: Apache-2.0
#include "core/config/config_sections.h"

#include "core/config/env_names.h"

#include <algorithm>
#include <set>
#include <stdexcept>

// An adapter's `egress`: the hosts and addresses a `network: gateway`
// session may reach, and the providers whose key the gateway inserts.
namespace nr::core::config_sections {

namespace {

// The longest field the gateway's control message carries (core/gateway/egress.cpp).
constexpr std::size_t kMaxEgressField = 255;

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

} // namespace

EgressPolicy read_egress(const ConfigReader& r, const Node& node, const Key& key)
{
    EgressPolicy egress;
    r.for_each_key(node, key,
                   {
                       {"allow_hosts",
                        [&](const Node& n, const Key& k) {
                            r.for_each_item(n, k, [&](const Node& item, const Key& where) {
                                auto host = egress_host(r, item, where);
                                if (std::find(egress.allow_hosts.begin(), egress.allow_hosts.end(), host) !=
                                    egress.allow_hosts.end()) {
                                    r.error_at(item, where, host + " is listed twice");
                                }
                                egress.allow_hosts.push_back(std::move(host));
                            });
                        }},
                       {"allow_addresses", r.assign(egress.allow_addresses, &ConfigReader::address_list)},
                       {"providers",
                        [&](const Node& n, const Key& k) {
                            r.for_each_item(n, k, [&](const Node& item, const Key& where) {
                                egress.providers.push_back(read_provider(r, item, where));
                            });
                        }},
                   });
    return egress;
}

std::array<std::pair<std::string, std::string>, 2> planned_names(const ProviderRoute& route)
{
    return {{{"key_env", route.key_env}, {"base_url_env", route.base_url_env}}};
}

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

} // namespace nr::core::config_sections
