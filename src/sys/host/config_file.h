// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reads the configuration file and hands its text to the core parser.

#include <string>

#include "core/config/config.h"

namespace nr::sys {

// The path in $NATIVE_RUNTIME_CONFIG when set (tests), else the default.
std::string config_path();

// Throws core::Error(ConfigInvalid) when the file cannot be read or parsed.
core::Config load_config(const std::string& path);

} // namespace nr::sys
