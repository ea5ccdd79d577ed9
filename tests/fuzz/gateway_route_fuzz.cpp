// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the egress gateway's route decision
// (core/gateway/gateway_route.h). Its input is what model-controlled code inside a
// session sends: a method, a request target and a header value.
//
// The input is three lines: method, target, the provider header's value.
//
// Checked: a forward names a provider of the policy, its host, and an
// origin-form target; a tunnel names an allow-listed host that is no
// provider, on 443 unless the allow-list names the port; a refusal has a
// reason and a host and message fit for a header and a log line; the
// token matches only the exact "<scheme> <token>" value.

#include "core/gateway/gateway_route.h"
#include "fuzz_support.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace {

using namespace nr::core;
using nr::fuzz::require;

const std::string kToken(64, 'a');

EgressPolicy policy()
{
    EgressPolicy p;
    p.allow_hosts = {"api.openai.com", "github.com", "localhost:8443", "example.org:8443"};
    ProviderRoute openai;
    openai.host = "api.openai.com";
    openai.credential = "openai-key";
    ProviderRoute local;
    local.host = "localhost:8443";
    local.credential = "local-key";
    local.header = "x-api-key";
    local.scheme = "";
    p.providers = {openai, local};
    return p;
}

std::string_view next_line(std::string_view& text)
{
    const auto newline = text.find('\n');
    const auto line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    return line;
}

bool printable_host(const std::string& host)
{
    return host.size() <= 255 && std::all_of(host.begin(), host.end(), [](char c) {
               return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == ':' || c == '?';
           });
}

bool listed(const std::vector<std::string>& hosts, const std::string& name, std::uint16_t port)
{
    const auto with_port = name + ":" + std::to_string(port);
    return std::any_of(hosts.begin(), hosts.end(),
                       [&](const auto& h) { return h == with_port || (port == 443 && h == name); });
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    std::string_view input(reinterpret_cast<const char*>(data), size);
    const auto method = next_line(input);
    const auto target = next_line(input);
    const auto header = next_line(input);
    const auto p = policy();
    const auto route = decide_route(p, method, target, 8080);
    if (const auto* forward = std::get_if<RouteForward>(&route)) {
        require(forward->provider != nullptr, "a forward names a provider");
        require(forward->provider >= p.providers.data() && forward->provider < p.providers.data() + p.providers.size(),
                "the provider is one of the policy's");
        require(forward->provider->host == forward->host, "the forward goes to the provider's host");
        require(!forward->target.empty() && forward->target.front() == '/', "the target is origin-form");
        require(method != "CONNECT", "CONNECT is never forwarded with a key");
        const bool matches = token_matches(*forward->provider, header, kToken);
        require(matches == (header == provider_header_value(*forward->provider, kToken)),
                "the token matches exactly the provider's value");
    } else if (const auto* tunnel = std::get_if<RouteTunnel>(&route)) {
        require(method == "CONNECT", "only CONNECT tunnels");
        require(listed(p.allow_hosts, tunnel->host, tunnel->port), "a tunnel goes to an allow-listed host");
        std::vector<std::string> providers;
        for (const auto& provider : p.providers) {
            providers.push_back(provider.host);
        }
        require(!listed(providers, tunnel->host, tunnel->port), "a provider is never tunnelled");
    } else {
        const auto& refusal = std::get<RouteRefuse>(route);
        require(!refusal.reason.empty(), "a refusal has a reason");
        require(printable_host(refusal.host), "the refused host is sanitised");
        const auto message = refusal_message(refusal);
        require(message.find_first_of("\r\n") == std::string::npos, "the message is one line");
    }
    return 0;
}
