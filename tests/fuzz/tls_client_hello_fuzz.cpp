// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the ClientHello check of the egress gateway's
// tunnels (core/gateway/tls_client_hello.h). Its input is what model-controlled code
// inside a session sends first on a CONNECT tunnel: any bytes.
//
// Checked: waiting asks for more than was given and never past the limit; a
// refusal has one of the documented reasons; a name is a non-empty DNS name
// of at most 253 characters that matches itself in lower case and nothing
// longer; and a prefix of the input is either undecided, asking for no more
// than a hello that is accepted later sends, or decided as the whole input is.

#include "core/gateway/tls_client_hello.h"
#include "fuzz_support.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace {

using namespace nr::core;
using nr::fuzz::require;

bool documented_reason(const std::string& reason)
{
    constexpr std::array<std::string_view, 6> kReasons{"not-tls",  "malformed-client-hello", "no-sni", "ech", "bad-sni",
                                                       "too-large"};
    return std::find(kReasons.begin(), kReasons.end(), reason) != kReasons.end();
}

bool dns_characters(const std::string& host)
{
    return std::all_of(host.begin(), host.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
    });
}

std::string lower(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(),
                   [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; });
    return text;
}

void check_alone(const ClientHelloResult& result, std::size_t size)
{
    if (const auto* more = std::get_if<ClientHelloNeedMore>(&result)) {
        require(more->at_least > size, "waiting asks for more than was given");
        require(more->at_least <= kMaxClientHelloBytes, "waiting never asks past the limit");
    } else if (const auto* refusal = std::get_if<ClientHelloRefuse>(&result)) {
        require(documented_reason(refusal->reason), "a refusal has a documented reason");
    } else {
        const auto& host = std::get<ClientHelloSni>(result).host;
        require(!host.empty() && host.size() <= 253 && dns_characters(host), "a name is a DNS name");
        require(host.front() != '.' && host.back() != '.', "a name has no leading or trailing dot");
        require(sni_matches(host, lower(host)), "a name matches itself in lower case");
        require(!sni_matches(host, lower(host) + "."), "a name does not match a longer host");
    }
}

bool same_decision(const ClientHelloResult& a, const ClientHelloResult& b)
{
    if (a.index() != b.index()) {
        return false;
    }
    if (const auto* refusal = std::get_if<ClientHelloRefuse>(&a)) {
        return refusal->reason == std::get<ClientHelloRefuse>(b).reason;
    }
    return std::get<ClientHelloSni>(a).host == std::get<ClientHelloSni>(b).host;
}

void check_prefix(std::string_view input, const ClientHelloResult& whole, std::size_t cut)
{
    const auto prefix = inspect_client_hello(input.substr(0, cut));
    check_alone(prefix, cut);
    if (const auto* more = std::get_if<ClientHelloNeedMore>(&prefix)) {
        if (std::holds_alternative<ClientHelloSni>(whole)) {
            require(more->at_least <= input.size(), "an accepted hello sends what waiting asked for");
        }
        if (const auto* still = std::get_if<ClientHelloNeedMore>(&whole)) {
            require(more->at_least <= still->at_least, "more bytes never lower what is asked for");
        }
    } else {
        require(same_decision(prefix, whole), "a decision on a prefix is the decision on the whole");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const auto whole = inspect_client_hello(input);
    check_alone(whole, size);
    // A few cuts, not all: every prefix would make the harness quadratic.
    // They fall on the header and handshake-length boundaries of the first
    // record and across the rest.
    for (const std::size_t cut : {std::size_t{1}, std::size_t{2}, std::size_t{5}, std::size_t{6}, std::size_t{9},
                                  size / 3, size / 2, size - 1}) {
        if (cut < size) {
            check_prefix(input, whole, cut);
        }
    }
    return 0;
}
