// SPDX-License-Identifier: Apache-2.0
#include "core/cli/session_address.h"

#include "core/base/error.h"
#include "core/base/ids.h"
#include "core/base/unit_name.h"

#include <algorithm>

namespace nr::core {

namespace {

// The text in quotes when it is printable ASCII; otherwise nothing, so that
// an error message never echoes bytes a terminal would interpret.
std::string quoted(std::string_view text)
{
    const bool printable = !text.empty() && text.size() <= 200 &&
                           std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
    return printable ? "'" + std::string(text) + "' " : std::string();
}

[[noreturn]] void fail_on(std::string_view text, const std::string& problem)
{
    fail(ErrorKind::InvalidArgument, "session " + quoted(text) + problem);
}

int hex_value(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    return -1; // systemd writes lower-case hex only
}

// systemd_escape()'s inverse for one escaped id (no '/' to undo: ids have
// none); nullopt for a malformed \xNN.
std::optional<std::string> unescape(std::string_view part)
{
    std::string out;
    for (std::size_t i = 0; i < part.size(); ++i) {
        if (part[i] != '\\') {
            out += part[i];
            continue;
        }
        if (i + 3 >= part.size() || part[i + 1] != 'x' || hex_value(part[i + 2]) < 0 || hex_value(part[i + 3]) < 0) {
            return std::nullopt;
        }
        out += static_cast<char>(hex_value(part[i + 2]) * 16 + hex_value(part[i + 3]));
        i += 3;
    }
    return out;
}

// The ids of a session's unit name, when `text` is exactly the name
// session_unit_name() makes of two valid ids.
std::optional<SessionAddress> from_unit_name(std::string_view text)
{
    if (!is_session_unit_name(text)) {
        return std::nullopt;
    }
    constexpr std::string_view kSuffix = ".service";
    const auto body = text.substr(kUnitPrefix.size(), text.size() - kUnitPrefix.size() - kSuffix.size());
    const auto dash = body.find('-'); // escaping leaves exactly one: the separator
    const auto owner = unescape(body.substr(0, dash));
    const auto chat = unescape(body.substr(dash + 1));
    if (!owner || !chat) {
        return std::nullopt;
    }
    return SessionAddress{*owner, *chat};
}

void validate_part(std::string_view text, IdKind kind, std::string_view value)
{
    try {
        validate_id(kind, value);
    } catch (const Error& e) {
        fail_on(text, std::string("has an invalid ") + std::string(id_kind_name(kind)) + ": " + e.what());
    }
}

SessionAddress from_owner_chat(std::string_view text, std::size_t slash)
{
    if (text.find('/', slash + 1) != std::string_view::npos) {
        fail_on(text, "has more than one '/': expected OWNER/CHAT");
    }
    SessionAddress address{std::string(text.substr(0, slash)), std::string(text.substr(slash + 1))};
    if (address.owner.empty()) {
        fail_on(text, "has an empty owner before the '/': expected OWNER/CHAT");
    }
    if (address.chat.empty()) {
        fail_on(text, "has an empty chat after the '/': expected OWNER/CHAT");
    }
    validate_part(text, IdKind::Owner, address.owner);
    validate_part(text, IdKind::Chat, address.chat);
    return address;
}

std::optional<SessionAddress> valid_unit_name(std::string_view text)
{
    auto address = from_unit_name(text);
    if (address) {
        validate_part(text, IdKind::Owner, address->owner);
        validate_part(text, IdKind::Chat, address->chat);
        // Only the canonical spelling (what systemd shows): "\x61" for "a"
        // would name the same ids under a unit that never exists.
        if (session_unit_name(address->owner, address->chat) != text) {
            fail_on(text, "is not spelled as systemd names the session's unit");
        }
    }
    return address;
}

} // namespace

SessionAddress parse_session_address(std::string_view text)
{
    if (text.empty()) {
        fail_on(text, "is empty: expected OWNER/CHAT");
    }
    if (const auto slash = text.find('/'); slash != std::string_view::npos) {
        return from_owner_chat(text, slash);
    }
    if (auto address = valid_unit_name(text)) {
        return *address;
    }
    fail_on(text, "has no '/': expected OWNER/CHAT or a session's unit name (native-runtime-OWNER-CHAT.service)");
}

SessionAddress parse_owner_address(std::string_view text)
{
    if (text.find('/') != std::string_view::npos) {
        return parse_session_address(text);
    }
    if (auto address = valid_unit_name(text)) {
        return *address;
    }
    if (text.empty()) {
        fail_on(text, "is empty: expected OWNER or OWNER/CHAT");
    }
    validate_part(text, IdKind::Owner, text);
    return SessionAddress{std::string(text), {}};
}

SessionAddress resolve_session_address(const std::optional<SessionAddress>& positional, const SessionAddress& flags,
                                       bool chat_required)
{
    if (!positional) {
        if (flags.owner.empty()) {
            fail(ErrorKind::InvalidArgument, chat_required
                                                 ? "no session given: name it as OWNER/CHAT or with --owner and --chat"
                                                 : "no owner given: name it as OWNER or with --owner");
        }
        if (chat_required && flags.chat.empty()) {
            fail(ErrorKind::InvalidArgument, "no chat given: name the session as OWNER/CHAT or add --chat");
        }
        return flags;
    }
    const auto& named = *positional;
    const auto shown = named.chat.empty() ? named.owner : named.owner + "/" + named.chat;
    if (!flags.owner.empty() && flags.owner != named.owner) {
        fail(ErrorKind::InvalidArgument, shown + " names owner " + named.owner + ", but --owner names " + flags.owner);
    }
    if (!flags.chat.empty() && !named.chat.empty() && flags.chat != named.chat) {
        fail(ErrorKind::InvalidArgument, shown + " names chat " + named.chat + ", but --chat names " + flags.chat);
    }
    SessionAddress out{named.owner, named.chat.empty() ? flags.chat : named.chat};
    if (chat_required && out.chat.empty()) {
        fail(ErrorKind::InvalidArgument, "no chat given: name the session as OWNER/CHAT or add --chat");
    }
    return out;
}

} // namespace nr::core
