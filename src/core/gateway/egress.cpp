// SPDX-License-Identifier: Apache-2.0
#include "core/gateway/egress.h"

#include "core/base/error.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <stdexcept>

namespace nr::core {

namespace {

constexpr std::string_view kRegister = "register";
constexpr std::string_view kRevoke = "revoke";
constexpr std::size_t kMaxHostLength = 253;
constexpr std::size_t kMaxLabelLength = 63;
constexpr std::size_t kMaxFieldLength = 255;
constexpr std::size_t kTokenLength = 64;
constexpr char kProviderSeparator = '\t';

[[noreturn]] void refuse(const std::string& what)
{
    fail(ErrorKind::InvalidArgument, "gateway control message: " + what);
}

bool is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool is_graphic(std::string_view text)
{
    return std::all_of(text.begin(), text.end(), [](char c) { return c > ' ' && c < '\x7f'; });
}

// A unit, owner, chat or adapter: the helper validated each far more
// strictly; here only what keeps the line format unambiguous.
void check_name_field(std::string_view value, std::string_view what)
{
    if (value.empty() || value.size() > kMaxFieldLength || !is_graphic(value)) {
        refuse(std::string(what) + " must be 1 to 255 printable characters without spaces");
    }
}

void check_token(std::string_view token)
{
    if (token.size() != kTokenLength || !std::all_of(token.begin(), token.end(), [](char c) {
            return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
        })) {
        refuse("the token must be 64 lower-case hex digits");
    }
}

bool is_env_name(std::string_view name)
{
    const auto head = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
    return !name.empty() && name.size() <= kMaxFieldLength && head(name.front()) &&
           std::all_of(name.begin(), name.end(), [&](char c) { return head(c) || (c >= '0' && c <= '9'); });
}

// RFC 9110 token characters: what a header name or an auth scheme may hold.
bool is_http_token(std::string_view text)
{
    constexpr std::string_view kExtra = "!#$%&'*+-.^_`|~";
    return !text.empty() && text.size() <= kMaxFieldLength && std::all_of(text.begin(), text.end(), [&](char c) {
        return (c >= 'A' && c <= 'Z') || is_lower_alnum(c) || kExtra.find(c) != std::string_view::npos;
    });
}

bool is_credential_name(std::string_view name)
{
    return !name.empty() && name.size() <= kMaxFieldLength && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || is_lower_alnum(c) || c == '_' || c == '.' || c == '-';
    });
}

// A path prefix the gateway puts in front of the client's own path: no
// query, fragment or dot segment, so it cannot change which host is meant.
bool is_base_path(std::string_view path)
{
    if (path.empty()) {
        return true;
    }
    if (path.front() != '/' || path.size() > kMaxFieldLength || !is_graphic(path) ||
        path.find_first_of("?#%\\") != std::string_view::npos || path.find("//") != std::string_view::npos) {
        return false;
    }
    std::string_view rest = path.substr(1);
    while (!rest.empty()) {
        const auto slash = rest.find('/');
        const auto segment = rest.substr(0, slash);
        if (segment == "." || segment == "..") {
            return false;
        }
        rest.remove_prefix(slash == std::string_view::npos ? rest.size() : slash + 1);
    }
    return true;
}

void check_provider(const ProviderRoute& provider)
{
    check_egress_host(provider.host);
    if (!is_credential_name(provider.credential)) {
        throw std::invalid_argument("credential name '" + provider.credential + "' is not [A-Za-z0-9_.-]+");
    }
    if (!is_http_token(provider.header)) {
        throw std::invalid_argument("header '" + provider.header + "' is not an HTTP header name");
    }
    if (!provider.scheme.empty() && !is_http_token(provider.scheme)) {
        throw std::invalid_argument("scheme '" + provider.scheme + "' is not an HTTP token");
    }
    if (!is_env_name(provider.key_env) || !is_env_name(provider.base_url_env)) {
        throw std::invalid_argument("key_env and base_url_env must be environment variable names");
    }
    if (!is_base_path(provider.base_path)) {
        throw std::invalid_argument("base_path '" + provider.base_path +
                                    "' must be empty or an absolute path without query or dot segments");
    }
}

void check_in_bounds(std::uint64_t value, std::uint64_t max, std::string_view what)
{
    if (value == 0 || value > max) {
        refuse(std::string(what) + " must be 1 to " + std::to_string(max));
    }
}

void check_session(const GatewaySession& session)
{
    check_name_field(session.unit, "unit");
    check_name_field(session.owner, "owner");
    check_name_field(session.chat, "chat");
    check_name_field(session.adapter, "adapter");
    check_token(session.token);
    if (session.max_header_bytes == 0 || session.max_request_bytes == 0 || session.max_response_bytes == 0) {
        refuse("every size limit must be above 0");
    }
    if (session.request_budget > kMaxRequestBudget) {
        refuse("request_budget must be at most " + std::to_string(kMaxRequestBudget));
    }
    if (session.budget_window_sec == 0 || session.budget_window_sec > kMaxBudgetWindowSec) {
        refuse("budget_window_sec must be 1 to " + std::to_string(kMaxBudgetWindowSec));
    }
    check_in_bounds(session.max_connections, kMaxConnectionsLimit, "max_connections");
    check_in_bounds(session.max_tunnels, kMaxTunnelsLimit, "max_tunnels");
    if (session.max_tunnels > session.max_connections) {
        refuse("max_tunnels must be at most max_connections");
    }
    check_in_bounds(session.max_buffered_bytes, kMaxBufferedBytesLimit, "max_buffered_bytes");
    if (!buffered_bytes_fit_header(session.max_buffered_bytes, session.max_header_bytes)) {
        refuse("max_buffered_bytes must be at least max_header_bytes + " + std::to_string(kBufferedBytesBeyondHeader));
    }
    check_in_bounds(session.header_timeout_sec, kMaxHeaderTimeoutSec, "header_timeout_sec");
    check_in_bounds(session.idle_timeout_sec, kMaxIdleTimeoutSec, "idle_timeout_sec");
    try {
        for (const auto& host : session.egress.allow_hosts) {
            check_egress_host(host);
        }
        for (const auto& provider : session.egress.providers) {
            check_provider(provider);
            if (std::find(session.egress.allow_hosts.begin(), session.egress.allow_hosts.end(), provider.host) ==
                session.egress.allow_hosts.end()) {
                throw std::invalid_argument("provider host " + provider.host + " is not on the allow-list");
            }
        }
    } catch (const std::invalid_argument& e) {
        refuse(e.what());
    }
}

std::string provider_line(const ProviderRoute& p)
{
    const std::string sep(1, kProviderSeparator);
    return p.host + sep + p.credential + sep + p.header + sep + p.scheme + sep + p.key_env + sep + p.base_url_env +
           sep + p.base_path;
}

std::vector<std::string_view> split(std::string_view text, char separator)
{
    std::vector<std::string_view> parts;
    while (true) {
        const auto at = text.find(separator);
        parts.push_back(text.substr(0, at));
        if (at == std::string_view::npos) {
            return parts;
        }
        text.remove_prefix(at + 1);
    }
}

std::uint64_t decimal(std::string_view text, std::string_view what)
{
    std::uint64_t value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end || (text.size() > 1 && text.front() == '0')) {
        refuse(std::string(what) + " is not a decimal number");
    }
    return value;
}

// Reads "key=value" lines in the encoder's order.
class Lines {
public:
    explicit Lines(std::string_view message) : lines_(split(message, '\n'))
    {
        if (lines_.size() < 2 || !lines_.back().empty()) {
            refuse("it must be lines, each ended by a newline");
        }
        lines_.pop_back();
    }

    std::string_view kind() { return lines_.at(next_++); }

    bool next_is(std::string_view key) const
    {
        return next_ < lines_.size() && lines_[next_].substr(0, key.size() + 1) == std::string(key) + "=";
    }

    std::string_view value(std::string_view key)
    {
        if (!next_is(key)) {
            refuse("expected " + std::string(key) + "= at line " + std::to_string(next_ + 1));
        }
        return lines_[next_++].substr(key.size() + 1);
    }

    void expect_end() const
    {
        if (next_ != lines_.size()) {
            refuse("unexpected line " + std::to_string(next_ + 1));
        }
    }

private:
    std::vector<std::string_view> lines_;
    std::size_t next_ = 0;
};

ProviderRoute decode_provider(std::string_view line)
{
    const auto parts = split(line, kProviderSeparator);
    if (parts.size() != 7) {
        refuse("a provider needs 7 tab-separated fields");
    }
    return ProviderRoute{std::string(parts[0]), std::string(parts[1]), std::string(parts[2]), std::string(parts[3]),
                         std::string(parts[4]), std::string(parts[5]), std::string(parts[6])};
}

} // namespace

void check_egress_host(std::string_view host)
{
    const auto colon = host.find(':');
    const auto name = host.substr(0, colon);
    if (colon != std::string_view::npos) {
        const auto port = host.substr(colon + 1);
        std::uint32_t value = 0;
        const auto* end = port.data() + port.size();
        const auto [ptr, ec] = std::from_chars(port.data(), end, value);
        if (port.empty() || ec != std::errc() || ptr != end || port.front() == '0' || value > 65535) {
            throw std::invalid_argument("'" + std::string(host) + "': the port must be a number in 1..65535");
        }
    }
    if (name.empty() || name.size() > kMaxHostLength) {
        throw std::invalid_argument("'" + std::string(host) + "': a host name of 1 to 253 characters is required");
    }
    const auto labels = split(name, '.');
    for (const auto label : labels) {
        if (label.empty() || label.size() > kMaxLabelLength || label.front() == '-' || label.back() == '-' ||
            !std::all_of(label.begin(), label.end(), [](char c) { return is_lower_alnum(c) || c == '-'; })) {
            throw std::invalid_argument("'" + std::string(host) +
                                        "' is not a lower-case DNS name (no wildcard, no trailing dot)");
        }
    }
    // An all-numeric last label makes it an IPv4 literal (or something a
    // resolver may read as one): the allow-list names hosts, not addresses.
    const auto last = labels.back();
    if (std::all_of(last.begin(), last.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        throw std::invalid_argument("'" + std::string(host) + "' is an address, not a host name");
    }
}

bool buffered_bytes_fit_header(std::uint64_t max_buffered_bytes, std::uint64_t max_header_bytes)
{
    return max_buffered_bytes >= max_header_bytes &&
           max_buffered_bytes - max_header_bytes >= kBufferedBytesBeyondHeader;
}

std::uint64_t owner_request_budget(const RequestBudgetSettings& settings, const std::string& owner)
{
    const auto it = settings.owners.find(owner);
    return it == settings.owners.end() ? settings.per_owner : it->second;
}

std::string encode_gateway_register(const GatewaySession& session)
{
    check_session(session);
    std::string out = std::string(kRegister) + "\n";
    out += "unit=" + session.unit + "\n";
    out += "owner=" + session.owner + "\n";
    out += "chat=" + session.chat + "\n";
    out += "adapter=" + session.adapter + "\n";
    out += "token=" + session.token + "\n";
    out += "max_header_bytes=" + std::to_string(session.max_header_bytes) + "\n";
    out += "max_request_bytes=" + std::to_string(session.max_request_bytes) + "\n";
    out += "max_response_bytes=" + std::to_string(session.max_response_bytes) + "\n";
    out += "request_budget=" + std::to_string(session.request_budget) + "\n";
    out += "budget_window_sec=" + std::to_string(session.budget_window_sec) + "\n";
    out += "max_connections=" + std::to_string(session.max_connections) + "\n";
    out += "max_tunnels=" + std::to_string(session.max_tunnels) + "\n";
    out += "max_buffered_bytes=" + std::to_string(session.max_buffered_bytes) + "\n";
    out += "header_timeout_sec=" + std::to_string(session.header_timeout_sec) + "\n";
    out += "idle_timeout_sec=" + std::to_string(session.idle_timeout_sec) + "\n";
    for (const auto& host : session.egress.allow_hosts) {
        out += "allow_host=" + host + "\n";
    }
    for (const auto& prefix : session.egress.allow_addresses) {
        out += "allow_address=" + format_ip_prefix(prefix) + "\n";
    }
    for (const auto& provider : session.egress.providers) {
        out += "provider=" + provider_line(provider) + "\n";
    }
    return out;
}

std::string encode_gateway_revoke(const std::string& unit)
{
    check_name_field(unit, "unit");
    return std::string(kRevoke) + "\nunit=" + unit + "\n";
}

GatewayControl decode_gateway_control(std::string_view message)
{
    Lines lines(message);
    GatewayControl out;
    const auto kind = lines.kind();
    if (kind == kRevoke) {
        out.kind = GatewayControl::Kind::Revoke;
        out.session.unit = std::string(lines.value("unit"));
        lines.expect_end();
        if (encode_gateway_revoke(out.session.unit) != message) {
            refuse("not in the encoder's form");
        }
        return out;
    }
    if (kind != kRegister) {
        refuse("unknown message kind");
    }
    auto& s = out.session;
    s.unit = std::string(lines.value("unit"));
    s.owner = std::string(lines.value("owner"));
    s.chat = std::string(lines.value("chat"));
    s.adapter = std::string(lines.value("adapter"));
    s.token = std::string(lines.value("token"));
    s.max_header_bytes = decimal(lines.value("max_header_bytes"), "max_header_bytes");
    s.max_request_bytes = decimal(lines.value("max_request_bytes"), "max_request_bytes");
    s.max_response_bytes = decimal(lines.value("max_response_bytes"), "max_response_bytes");
    s.request_budget = decimal(lines.value("request_budget"), "request_budget");
    s.budget_window_sec = decimal(lines.value("budget_window_sec"), "budget_window_sec");
    s.max_connections = decimal(lines.value("max_connections"), "max_connections");
    s.max_tunnels = decimal(lines.value("max_tunnels"), "max_tunnels");
    s.max_buffered_bytes = decimal(lines.value("max_buffered_bytes"), "max_buffered_bytes");
    s.header_timeout_sec = decimal(lines.value("header_timeout_sec"), "header_timeout_sec");
    s.idle_timeout_sec = decimal(lines.value("idle_timeout_sec"), "idle_timeout_sec");
    while (lines.next_is("allow_host")) {
        s.egress.allow_hosts.emplace_back(lines.value("allow_host"));
    }
    while (lines.next_is("allow_address")) {
        try {
            s.egress.allow_addresses.push_back(parse_ip_prefix(lines.value("allow_address")));
        } catch (const std::invalid_argument& e) {
            refuse(std::string("allow_address: ") + e.what());
        }
    }
    while (lines.next_is("provider")) {
        s.egress.providers.push_back(decode_provider(lines.value("provider")));
    }
    lines.expect_end();
    // Validates every field and, by comparing, refuses any other spelling of
    // the same session (an address written differently, a number with a
    // sign), so that what the gateway acts on is what the helper meant.
    if (encode_gateway_register(s) != message) {
        refuse("not in the encoder's form");
    }
    return out;
}

std::string upgrade_stored_registration(std::string_view message)
{
    std::string text(message);
    if (!text.starts_with(std::string(kRegister) + "\n") || text.find("\nmax_connections=") != std::string::npos) {
        return text;
    }
    const auto at = text.find("\nbudget_window_sec=");
    if (at == std::string::npos) {
        return text;
    }
    const auto line_end = text.find('\n', at + 1);
    if (line_end == std::string::npos) {
        return text;
    }
    const GatewaySession defaults;
    text.insert(line_end + 1, "max_connections=" + std::to_string(defaults.max_connections) + "\n" +
                                  "max_tunnels=" + std::to_string(defaults.max_tunnels) + "\n" +
                                  "max_buffered_bytes=" + std::to_string(defaults.max_buffered_bytes) + "\n" +
                                  "header_timeout_sec=" + std::to_string(defaults.header_timeout_sec) + "\n" +
                                  "idle_timeout_sec=" + std::to_string(defaults.idle_timeout_sec) + "\n");
    return text;
}

} // namespace nr::core
