#pragma once
// The one place where core error kinds become D-Bus error names.

#include <sdbus-c++/Error.h>
#include <string>

#include "core/error.h"

namespace nr::daemon {

inline constexpr const char* kBusName = "org.metis.NativeRuntime1";
inline constexpr const char* kObjectPath = "/org/metis/NativeRuntime1";
inline constexpr const char* kErrorPrefix = "org.metis.NativeRuntime1.Error.";

std::string bus_error_name(core::ErrorKind kind);

sdbus::Error to_bus_error(const core::Error& error);

} // namespace nr::daemon
