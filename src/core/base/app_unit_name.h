// SPDX-License-Identifier: Apache-2.0
#pragma once
// The application units an operator may give a drop-in to: checked when
// the configuration names one and when the CLI installs one. Apart from
// unit_name.h because only those two need it, and the supervisor links
// unit_name.

#include <string_view>

namespace nr::core {

// Throws Error(InvalidArgument) unless `unit` is a service unit name (a
// template instance is fine) that is not one of native-runtime's own.
void validate_app_unit_name(std::string_view unit);

} // namespace nr::core
