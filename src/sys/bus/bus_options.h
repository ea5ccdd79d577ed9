// SPDX-License-Identifier: Apache-2.0
#pragma once
// Turns an a{sv} dictionary from the bus into the core's typed option
// values, keeping the signature of anything the core has no type for so the
// refusal can name it.

#include <sdbus-c++/sdbus-c++.h>

#include <map>
#include <string>

#include "core/bus/start_options.h"

namespace nr::sys {

std::map<std::string, core::OptionValue> option_values(const std::map<std::string, sdbus::Variant>& options);

} // namespace nr::sys
