// SPDX-License-Identifier: Apache-2.0
#include "core/gateway/gateway_route.h"

#include "core/gateway/gateway_request.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace nr::core {

namespace {

constexpr std::size_t kMaxHostChars = 255;

std::string lower(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool iequals(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && lower(a) == lower(b);
}

const ProviderRoute* find_provider(const EgressPolicy& policy, std::string_view host)
{
    for (const auto& provider : policy.providers) {
        if (provider.host == host) {
            return &provider;
        }
    }
    return nullptr;
}

bool parse_port(std::string_view digits, std::uint16_t& port)
{
    if (digits.empty() || digits.size() > 5 || digits.front() == '0') {
        return false;
    }
    unsigned value = 0;
    const auto* end = digits.data() + digits.size();
    const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
    if (ec != std::errc() || ptr != end || value == 0 || value > 65535) {
        return false;
    }
    port = static_cast<std::uint16_t>(value);
    return true;
}

RouteRefuse refuse(std::string reason, std::string_view host, unsigned status = 403)
{
    return RouteRefuse{std::move(reason), sanitize_host(host), status};
}

// A segment that reads as "." or ".." once percent-decoded.
bool dot_segment(std::string_view segment)
{
    std::string decoded;
    for (std::size_t i = 0; i < segment.size(); ++i) {
        if (segment[i] == '%' && i + 2 < segment.size() && segment[i + 1] == '2' &&
            (segment[i + 2] == 'e' || segment[i + 2] == 'E')) {
            decoded += '.';
            i += 2;
        } else {
            decoded += segment[i];
        }
    }
    return decoded == "." || decoded == "..";
}

// The path of `rest` ("/v1/x?y"): every segment but the last non-empty, no
// dot segments, no backslash (some servers read it as a slash), no
// encoded slash.
bool plain_path(std::string_view rest)
{
    const auto path = rest.substr(0, rest.find_first_of("?#"));
    if (path.find('\\') != std::string_view::npos) {
        return false;
    }
    std::string lowered = lower(path);
    if (lowered.find("%2f") != std::string::npos || lowered.find("%5c") != std::string::npos) {
        return false;
    }
    std::string_view segments = path.substr(1);
    while (true) {
        const auto slash = segments.find('/');
        const auto segment = segments.substr(0, slash);
        if (dot_segment(segment) || (segment.empty() && slash != std::string_view::npos)) {
            return false;
        }
        if (slash == std::string_view::npos) {
            return true;
        }
        segments.remove_prefix(slash + 1);
    }
}

// "/<host><rest>": the host ends at the first '/', '?' or '#'.
Route provider_route(const EgressPolicy& policy, std::string_view target)
{
    if (target.empty() || target.front() != '/') {
        return refuse("bad-target", "");
    }
    target.remove_prefix(1);
    const auto end = target.find_first_of("/?#");
    const auto host = lower(target.substr(0, end));
    std::string rest(end == std::string_view::npos ? std::string_view() : target.substr(end));
    const auto* provider = find_provider(policy, host);
    if (provider == nullptr) {
        return refuse("not-a-provider", host);
    }
    if (rest.empty() || rest.front() != '/') {
        rest.insert(0, "/");
    }
    if (!plain_path(rest)) {
        return refuse("bad-path", host, 400);
    }
    return RouteForward{provider, host, std::move(rest)};
}

Route absolute_route(const EgressPolicy& policy, std::string_view target, std::uint16_t listener_port)
{
    constexpr std::string_view kScheme = "http://";
    if (target.size() < kScheme.size() || !iequals(target.substr(0, kScheme.size()), kScheme)) {
        return refuse("bad-target", "");
    }
    target.remove_prefix(kScheme.size());
    const auto slash = target.find_first_of("/?#");
    const auto authority = lower(target.substr(0, slash));
    const auto own = "127.0.0.1:" + std::to_string(listener_port);
    if (authority != own) {
        // Plain HTTP to anywhere else would leave the host unencrypted.
        const auto name = split_host_port(authority).name;
        return refuse("plain-http", name.empty() ? authority : name);
    }
    return provider_route(policy, slash == std::string_view::npos ? std::string_view("/") : target.substr(slash));
}

Route tunnel_route(const EgressPolicy& policy, std::string_view target)
{
    const auto colon = target.rfind(':');
    if (colon == std::string_view::npos) {
        return refuse("bad-connect-target", target);
    }
    const auto name = lower(target.substr(0, colon));
    std::uint16_t port = 0;
    if (!parse_port(target.substr(colon + 1), port)) {
        return refuse("bad-connect-target", name);
    }
    const auto with_port = name + ":" + std::to_string(port);
    const bool listed = std::any_of(policy.allow_hosts.begin(), policy.allow_hosts.end(), [&](const auto& host) {
        return host == with_port || (port == 443 && host == name);
    });
    if (!listed) {
        return refuse("not-on-allow-list", name);
    }
    const bool provider = std::any_of(policy.providers.begin(), policy.providers.end(), [&](const auto& route) {
        return route.host == with_port || (port == 443 && route.host == name);
    });
    if (provider) {
        // A tunnel would let the session talk to the provider with a key of
        // its own choosing, past the accounting: provider hosts are reached
        // only through the rewriting route.
        return refuse("provider-via-connect", name);
    }
    return RouteTunnel{name, port};
}

} // namespace

Route decide_route(const EgressPolicy& policy, std::string_view method, std::string_view target,
                   std::uint16_t listener_port)
{
    if (method == "CONNECT") {
        return tunnel_route(policy, target);
    }
    if (!forwardable_method(method)) {
        return refuse("method", "", 405);
    }
    if (!target.empty() && target.front() == '/') {
        return provider_route(policy, target);
    }
    return absolute_route(policy, target, listener_port);
}

std::string refusal_message(const RouteRefuse& refusal)
{
    if (refusal.reason == "method") {
        return "native-runtime gateway: only " + std::string(kForwardableMethods) + " reach a provider";
    }
    if (refusal.reason == "bad-path") {
        return "native-runtime gateway: the path has an empty or dot segment, or an encoded slash";
    }
    if (refusal.host.empty()) {
        return "native-runtime gateway: the request names no host on this session's allow-list";
    }
    return "native-runtime gateway: " + refusal.host + " is not on this session's allow-list";
}

bool constant_time_equal(std::string_view a, std::string_view b)
{
    // The lengths are public (the token's length is fixed by the format);
    // the content is compared without an early exit.
    unsigned char diff = a.size() == b.size() ? 0 : 1;
    const auto n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
        diff = static_cast<unsigned char>(diff | (static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b[i])));
    }
    return diff == 0;
}

bool token_matches(const ProviderRoute& provider, std::string_view header_value, std::string_view token)
{
    if (token.empty()) {
        return false;
    }
    return constant_time_equal(header_value, provider_header_value(provider, token));
}

std::string provider_header_value(const ProviderRoute& provider, std::string_view key)
{
    if (provider.scheme.empty()) {
        return std::string(key);
    }
    return provider.scheme + " " + std::string(key);
}

std::vector<std::string> hop_by_hop_headers(std::string_view connection_value)
{
    // Transfer-Encoding is hop-by-hop too, but the adapter's serializer
    // owns the framing of what it sends and rewrites it.
    std::vector<std::string> names{
        "connection", "proxy-connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
        "te",         "trailer",          "upgrade"};
    while (!connection_value.empty()) {
        const auto comma = connection_value.find(',');
        auto item = connection_value.substr(0, comma);
        connection_value.remove_prefix(comma == std::string_view::npos ? connection_value.size() : comma + 1);
        while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) {
            item.remove_prefix(1);
        }
        while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) {
            item.remove_suffix(1);
        }
        auto name = lower(item);
        if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) {
            names.push_back(std::move(name));
        }
    }
    return names;
}

HostPort split_host_port(std::string_view host)
{
    HostPort out;
    const auto colon = host.rfind(':');
    std::uint16_t port = 0;
    if (colon != std::string_view::npos && parse_port(host.substr(colon + 1), port)) {
        out.name = std::string(host.substr(0, colon));
        out.port = port;
    } else {
        out.name = std::string(host);
    }
    return out;
}

std::string sanitize_host(std::string_view host)
{
    std::string out;
    for (const char c : host.substr(0, kMaxHostChars)) {
        const auto u = static_cast<unsigned char>(c);
        const bool keep = std::islower(u) != 0 || std::isdigit(u) != 0 || c == '.' || c == '-' || c == ':';
        out.push_back(keep ? c : '?');
    }
    return out;
}

} // namespace nr::core
