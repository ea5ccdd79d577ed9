// SPDX-License-Identifier: Apache-2.0
#include "core/gateway/gateway_request.h"

#include <algorithm>
#include <array>
#include <charconv>

namespace nr::core {

namespace {

char lower_char(char c)
{
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequals(std::string_view a, std::string_view b)
{
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower_char(x) == lower_char(y); });
}

std::string_view trim(std::string_view text)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
        text.remove_suffix(1);
    }
    return text;
}

bool is_token(std::string_view text)
{
    constexpr std::string_view kExtra = "!#$%&'*+-.^_`|~";
    return !text.empty() && std::all_of(text.begin(), text.end(), [&](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               kExtra.find(c) != std::string_view::npos;
    });
}

// Visible characters, spaces, tabs and obs-text; never CR, LF or NUL.
bool is_field_value(std::string_view text)
{
    return std::all_of(text.begin(), text.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u != 0x7f && (u == '\t' || u >= ' ');
    });
}

bool list_has(std::string_view list, std::string_view item)
{
    while (!list.empty()) {
        const auto comma = list.find(',');
        if (iequals(trim(list.substr(0, comma)), item)) {
            return true;
        }
        list.remove_prefix(comma == std::string_view::npos ? list.size() : comma + 1);
    }
    return false;
}

RequestRefusal bad_framing(std::string message)
{
    return RequestRefusal{400, "bad-framing", "native-runtime gateway: " + std::move(message)};
}

// Never copied upstream: hop-by-hop fields (RFC 9110 7.6.1), the ones the
// gateway writes itself, and the ones that ask an intermediary for
// something (Max-Forwards: TRACE and OPTIONS only; Expect: the gateway
// answers it).
constexpr std::array kNeverForwarded{std::string_view("host"),
                                     std::string_view("content-length"),
                                     std::string_view("transfer-encoding"),
                                     std::string_view("expect"),
                                     std::string_view("max-forwards"),
                                     std::string_view("connection"),
                                     std::string_view("proxy-connection"),
                                     std::string_view("keep-alive"),
                                     std::string_view("proxy-authenticate"),
                                     std::string_view("proxy-authorization"),
                                     std::string_view("te"),
                                     std::string_view("trailer"),
                                     std::string_view("upgrade")};

bool forwarded(std::string_view name, std::string_view connection_list, std::string_view provider_header)
{
    return std::none_of(kNeverForwarded.begin(), kNeverForwarded.end(),
                        [&](std::string_view never) { return iequals(name, never); }) &&
           !iequals(name, provider_header) && !list_has(connection_list, name);
}

std::string hex(std::uint64_t value)
{
    std::array<char, 17> digits{};
    const auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), value, 16);
    (void)ec;
    return {digits.data(), end};
}

// What the header's fields say about the body and the connection, as the
// fields gave it, before any of it is believed.
struct FramingFields {
    std::size_t lengths = 0;
    std::size_t encodings = 0;
    std::string_view length_value;
    std::string_view encoding_value;
    std::string_view connection_list;
    bool expect_continue = false;
};

// Refuses the first malformed field, and an Expect the gateway cannot
// answer.
std::variant<FramingFields, RequestRefusal> scan_fields(const RequestHead& head)
{
    FramingFields fields;
    for (const auto& [name, value] : head.fields) {
        if (!is_token(name) || !is_field_value(value)) {
            return RequestRefusal{400, "malformed", "native-runtime gateway: a header field is malformed"};
        }
        if (iequals(name, "content-length")) {
            ++fields.lengths;
            fields.length_value = trim(value);
        } else if (iequals(name, "transfer-encoding")) {
            ++fields.encodings;
            fields.encoding_value = trim(value);
        } else if (iequals(name, "connection")) {
            fields.connection_list = value;
        } else if (iequals(name, "expect")) {
            if (!iequals(trim(value), "100-continue")) {
                return RequestRefusal{417, "expect", "native-runtime gateway: only Expect: 100-continue is understood"};
            }
            fields.expect_continue = true;
        }
    }
    return fields;
}

// One reading of where the body ends, or a refusal when the fields allow
// more than one.
RequestCheck framing_from(const FramingFields& fields, unsigned version)
{
    RequestFraming framing;
    framing.expect_continue = fields.expect_continue;
    if (fields.encodings > 0 && fields.lengths > 0) {
        return bad_framing("a request may not carry both Transfer-Encoding and Content-Length");
    }
    if (fields.lengths > 1) {
        return bad_framing("a request may carry one Content-Length");
    }
    if (fields.encodings > 1 || (fields.encodings == 1 && !iequals(fields.encoding_value, "chunked"))) {
        return bad_framing("the only Transfer-Encoding accepted is a single chunked");
    }
    if (fields.encodings == 1 && version < 11) {
        return bad_framing("chunked is not HTTP/1.0");
    }
    if (fields.lengths == 1) {
        const auto text = fields.length_value;
        std::uint64_t value = 0;
        const auto* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, value);
        if (text.empty() || text.front() == '+' || ec != std::errc() || ptr != end) {
            return bad_framing("Content-Length is not a number");
        }
        framing.content_length = value;
        framing.body = value > 0 ? BodyFraming::Length : BodyFraming::None;
    }
    if (fields.encodings == 1) {
        framing.body = BodyFraming::Chunked;
    }
    framing.keep_alive =
        version >= 11 ? !list_has(fields.connection_list, "close") : list_has(fields.connection_list, "keep-alive");
    return framing;
}

} // namespace

bool has_obs_fold(std::string_view raw_head)
{
    // The blank line that ends the header is "\r\n\r\n": only a CRLF
    // followed by a space or a tab continues a line.
    for (auto at = raw_head.find("\r\n"); at != std::string_view::npos; at = raw_head.find("\r\n", at + 2)) {
        if (at + 2 < raw_head.size() && (raw_head[at + 2] == ' ' || raw_head[at + 2] == '\t')) {
            return true;
        }
    }
    return false;
}

RequestCheck check_request_head(const RequestHead& head)
{
    // The parser checked these too; this is the last check before the
    // method and target are written upstream.
    const bool visible_target = !head.target.empty() && std::all_of(head.target.begin(), head.target.end(),
                                                                    [](char c) { return c > ' ' && c < '\x7f'; });
    if (!is_token(head.method) || !visible_target) {
        return RequestRefusal{400, "malformed", "native-runtime gateway: the request line is malformed"};
    }
    const auto scan = scan_fields(head);
    if (const auto* refusal = std::get_if<RequestRefusal>(&scan)) {
        return *refusal;
    }
    return framing_from(std::get<FramingFields>(scan), head.version);
}

UpstreamHead upstream_request_head(const RequestHead& head, const RouteForward& forward, const RequestFraming& framing)
{
    const auto& provider = *forward.provider;
    std::string_view connection_list;
    for (const auto& [name, value] : head.fields) {
        if (iequals(name, "connection")) {
            connection_list = value;
        }
    }
    UpstreamHead out;
    auto& text = out.before_key;
    text += std::string(head.method) + " " + forward.target + " HTTP/1.1\r\n";
    text += "Host: " + forward.host + "\r\n";
    for (const auto& [name, value] : head.fields) {
        if (forwarded(name, connection_list, provider.header)) {
            text += std::string(name) + ": " + std::string(trim(value)) + "\r\n";
        }
    }
    text += provider.header + ": " + (provider.scheme.empty() ? std::string() : provider.scheme + " ");
    out.after_key = "\r\n";
    if (framing.body == BodyFraming::Chunked) {
        out.after_key += "Transfer-Encoding: chunked\r\n";
    } else if (framing.body == BodyFraming::Length || head.method == "POST") {
        // A POST without a body still says so: some servers wait for one.
        out.after_key += "Content-Length: " + std::to_string(framing.content_length) + "\r\n";
    }
    out.after_key += "\r\n";
    return out;
}

bool forwardable_method(std::string_view method)
{
    return method == "GET" || method == "POST" || method == "DELETE" || method == "HEAD";
}

FirstRecord first_upstream_record(const RequestFraming& framing, std::size_t head_bytes, std::size_t held_bytes)
{
    FirstRecord record;
    if (head_bytes > kTlsRecordBytes) {
        return record;
    }
    record.whole_head = true;
    if (framing.body == BodyFraming::Length && !framing.expect_continue) {
        const auto room = kTlsRecordBytes - head_bytes;
        const auto held = std::min<std::uint64_t>(held_bytes, framing.content_length);
        record.body_bytes = static_cast<std::size_t>(std::min<std::uint64_t>(held, room));
    }
    return record;
}

std::string chunk_header(std::uint64_t size)
{
    return hex(size) + "\r\n";
}

} // namespace nr::core
