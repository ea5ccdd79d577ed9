// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the identifier and path validators and the unit-name
// escaping built on them.
//
// Input: first byte selects the id kind, the rest is the candidate value.
// Checked: validate_id agrees with an independent restatement of the rule
// and refuses only with InvalidArgument naming the field; systemd_escape is
// invertible (so distinct ids never share a unit name) and never yields a
// dash or slash for an id; the session unit name of two ids parses back to
// exactly those ids; an accepted absolute path is canonical.

#include "core/base/error.h"
#include "core/base/ids.h"
#include "core/base/path_policy.h"
#include "core/base/unit_name.h"
#include "fuzz_support.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace {

using namespace nr::core;
using nr::fuzz::require;

bool reference_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool reference_is_valid_id(std::string_view v)
{
    if (v.empty() || v.size() > 64 || !reference_alnum(v.front())) {
        return false;
    }
    for (const char c : v) {
        if (!reference_alnum(c) && c != '.' && c != '_' && c != '@' && c != '-') {
            return false;
        }
    }
    return true;
}

int hex_value(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    return -1;
}

// Inverse of systemd_escape; nullopt when the text is not a possible output.
std::optional<std::string> unescape(std::string_view text)
{
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '-') {
            out += '/';
        } else if (text[i] == '\\') {
            if (i + 3 >= text.size()) {
                return std::nullopt;
            }
            if (text[i + 1] != 'x' || hex_value(text[i + 2]) < 0 || hex_value(text[i + 3]) < 0) {
                return std::nullopt;
            }
            out += static_cast<char>(hex_value(text[i + 2]) * 16 + hex_value(text[i + 3]));
            i += 3;
        } else {
            out += text[i];
        }
    }
    return out;
}

bool accepted_id(IdKind kind, std::string_view value)
{
    try {
        validate_id(kind, value);
        return true;
    } catch (const Error& e) {
        require(e.kind() == ErrorKind::InvalidArgument, "an id refusal is InvalidArgument");
        require(std::string_view(e.what()).starts_with(id_kind_name(kind)), "an id refusal names the field");
        return false;
    }
}

void check_escape(std::string_view value)
{
    const auto escaped = systemd_escape(value);
    const auto back = unescape(escaped);
    require(back.has_value() && *back == value, "systemd_escape is invertible");
    require(escaped.empty() || escaped.front() != '.', "an escaped name never starts with a dot");
    for (const char c : escaped) {
        require(static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7f,
                "an escaped name is printable ASCII");
    }
}

void check_id(IdKind kind, std::string_view value)
{
    const bool accepted = accepted_id(kind, value);
    require(accepted == reference_is_valid_id(value), "validate_id matches the documented rule");
    const bool optional_accepted = [&] {
        try {
            validate_optional_id(kind, value);
            return true;
        } catch (const Error&) {
            return false;
        }
    }();
    require(optional_accepted == (accepted || value.empty()), "validate_optional_id differs only for empty");
    if (!accepted) {
        return;
    }
    const auto escaped = systemd_escape(value);
    require(escaped.find('-') == std::string::npos && escaped.find('/') == std::string::npos,
            "an escaped id has no dash, so it cannot fake slice nesting or the owner/chat split");
    require(owner_slice_name(value) == "nativeruntime-" + escaped + ".slice", "owner slice name");
}

// Splits the value in two; when both halves are ids, their unit name must
// be recognised and must parse back to exactly those two ids.
void check_unit_name(std::string_view value)
{
    const auto half = value.size() / 2;
    const auto owner = value.substr(0, half);
    const auto chat = value.substr(half);
    if (!reference_is_valid_id(owner) || !reference_is_valid_id(chat)) {
        return;
    }
    const auto unit = session_unit_name(owner, chat);
    require(is_session_unit_name(unit), "our own unit names are recognised: " + unit);
    const std::string_view body = std::string_view(unit).substr(
        kUnitPrefix.size(), unit.size() - kUnitPrefix.size() - std::string_view(".service").size());
    const auto dash = body.find('-');
    require(dash != std::string_view::npos && body.find('-', dash + 1) == std::string_view::npos,
            "exactly one dash separates owner and chat");
    require(unescape(body.substr(0, dash)) == std::optional<std::string>(std::string(owner)) &&
                unescape(body.substr(dash + 1)) == std::optional<std::string>(std::string(chat)),
            "the unit name parses back to its owner and chat");
}

void check_path(std::string_view value)
{
    bool accepted = true;
    try {
        validate_absolute_path(value, "path");
    } catch (const Error& e) {
        require(e.kind() == ErrorKind::InvalidPath, "a path refusal is InvalidPath");
        accepted = false;
    }
    if (!accepted) {
        return;
    }
    require(!value.empty() && value.front() == '/', "an accepted path is absolute");
    std::string rebuilt;
    for (const auto& component : path_components(value)) {
        require(!component.empty() && component != "." && component != "..", "components are canonical");
        for (const char c : component) {
            require(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f, "no control characters");
        }
        rebuilt += "/" + component;
    }
    require((rebuilt.empty() ? std::string("/") : rebuilt) == value, "an accepted path is its own canonical form");
    require(path_is_within(value, value) && path_is_within(value, "/"), "a path lies within itself and /");
    require(join_path(value, "x") == (value == "/" ? std::string("/x") : std::string(value) + "/x"), "join_path");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0) {
        return 0;
    }
    const auto kind = static_cast<IdKind>(data[0] % 4U);
    const std::string_view value(reinterpret_cast<const char*>(data + 1), size - 1);
    check_id(kind, value);
    check_escape(value);
    check_unit_name(value);
    check_path(value);
    return 0;
}
