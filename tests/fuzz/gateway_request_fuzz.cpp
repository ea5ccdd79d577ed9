// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for what the egress gateway makes of a request's header
// (core/gateway/gateway_request.h): the framing it accepts and the header it writes
// upstream in place of the session's. Its input is what model-controlled
// code inside a session sends.
//
// The input is lines: "METHOD TARGET VERSION", then "name:value" fields
// (a line without a colon is a name with an empty value).
//
// Checked: an accepted request has exactly one framing, and the header
// written upstream has exactly one framing field (none for a bodiless
// request that is no POST), never the session's token, no field the
// gateway drops (hop-by-hop, Expect, Max-Forwards, a second Host), and no
// CR or LF except at line ends.

#include "core/gateway/gateway_request.h"
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

std::string_view next_line(std::string_view& text)
{
    const auto newline = text.find('\n');
    const auto line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    return line;
}

std::size_t count(std::string_view text, std::string_view part)
{
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string_view::npos; at = text.find(part, at + 1)) {
        ++n;
    }
    return n;
}

std::string lower(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    std::string_view input(reinterpret_cast<const char*>(data), size);
    RequestHead head;
    const auto request_line = next_line(input);
    const auto space = request_line.find(' ');
    head.method = request_line.substr(0, space);
    head.target = space == std::string_view::npos ? std::string_view() : request_line.substr(space + 1);
    head.version = head.target.ends_with(" 1.0") ? 10 : 11;
    while (!input.empty()) {
        const auto line = next_line(input);
        const auto colon = line.find(':');
        head.fields.emplace_back(line.substr(0, colon),
                                 colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1));
    }
    (void)has_obs_fold(request_line);
    const auto check = check_request_head(head);
    if (const auto* refusal = std::get_if<RequestRefusal>(&check)) {
        require(refusal->status >= 400 && refusal->status < 500, "a refusal is a client error");
        require(!refusal->reason.empty(), "a refusal has a reason");
        return 0;
    }
    const auto& framing = std::get<RequestFraming>(check);
    require(framing.body != BodyFraming::Length || framing.content_length > 0, "a length-framed body is not empty");
    ProviderRoute provider;
    provider.host = "api.openai.com";
    provider.credential = "k";
    const RouteForward forward{&provider, "api.openai.com", "/v1/x"};
    const auto out = upstream_request_head(head, forward, framing);
    const auto whole = lower(out.before_key + "KEY" + out.after_key);
    const auto framing_fields = count(whole, "\r\ncontent-length:") + count(whole, "\r\ntransfer-encoding:");
    const bool any_body = framing.body != BodyFraming::None || head.method == "POST";
    require(framing_fields == (any_body ? 1U : 0U), "exactly one framing field upstream");
    require(count(whole, "\r\nhost:") == 1, "exactly one Host upstream");
    require(count(whole, "\r\nauthorization:") == 1, "exactly one key field upstream");
    for (const auto* dropped : {"\r\nexpect:", "\r\nmax-forwards:", "\r\nconnection:", "\r\nupgrade:", "\r\nte:"}) {
        require(whole.find(dropped) == std::string::npos, std::string("dropped field upstream: ") + dropped);
    }
    const auto head_end = whole.find("\r\n\r\n");
    require(head_end + 4 == whole.size(), "the header ends once, at its end");
    require(count(whole, "\r\n") == count(whole, "\n") && count(whole, "\r\n") == count(whole, "\r"),
            "no bare CR or LF upstream");
    return 0;
}
