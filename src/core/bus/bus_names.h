// SPDX-License-Identifier: Apache-2.0
#pragma once
// The helper's names on the system bus, in one place for the three binaries
// and the docs (docs/dbus-api.md): the well-known name, the one object, its
// public interface and the prefix of every typed error it replies with.

#include "core/base/error.h"

#include <string>
#include <string_view>

namespace nr::core {

inline constexpr const char* kBusName = "org.metis.NativeRuntime1";
inline constexpr const char* kObjectPath = "/org/metis/NativeRuntime1";
inline constexpr const char* kManagerInterface = "org.metis.NativeRuntime1.Manager";
inline constexpr std::string_view kErrorPrefix = "org.metis.NativeRuntime1.Error.";

// org.metis.NativeRuntime1.Error.<Name> for a kind: the helper's replies.
inline std::string bus_error_name(ErrorKind kind)
{
    return std::string(kErrorPrefix).append(error_name(kind));
}

// Whether a D-Bus error name is one of the helper's typed errors.
inline bool is_helper_error(std::string_view name)
{
    return name.substr(0, kErrorPrefix.size()) == kErrorPrefix;
}

} // namespace nr::core
