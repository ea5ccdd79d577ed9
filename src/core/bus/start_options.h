// SPDX-License-Identifier: Apache-2.0
#pragma once
// StartSessionWithOptions carries what is optional about a session in an
// a{sv} dictionary. The dictionary comes from an untrusted caller, so every
// key is known and every value has exactly the documented type; anything
// else is refused rather than ignored, because a misspelt "workspace" that
// was silently dropped would start the session somewhere the caller did not
// ask for.

#include <map>
#include <string>
#include <string_view>
#include <variant>

namespace nr::core {

// The value types a known option can have; the bus adapter converts a
// variant holding anything else to Unsupported.
struct UnsupportedOptionType {
    std::string signature;
};
using OptionValue = std::variant<std::string, std::map<std::string, std::string>, UnsupportedOptionType>;

// What StartSession takes positionally and StartSessionWithOptions takes as
// options; an absent option is the empty value.
struct StartOptions {
    std::string job;
    std::string workspace;
    std::map<std::string, std::string> environment;
    std::string run_as_user;
};

// Every key, with its D-Bus signature, in the order docs/dbus-api.md lists
// them.
struct OptionSpec {
    std::string_view key;
    std::string_view signature;
};
inline constexpr OptionSpec kStartOptionSpecs[] = {
    {"job", "s"},
    {"workspace", "s"},
    {"environment", "a{ss}"},
    {"run_as_user", "s"},
};

// Throws Error(InvalidArgument) naming the key for an unknown key or a
// value of the wrong type.
StartOptions decode_start_options(const std::map<std::string, OptionValue>& options);

} // namespace nr::core
