// SPDX-License-Identifier: Apache-2.0
#pragma once
// Every verb of native-runtimectl runs inside guarded(): whatever it throws
// becomes one line on stderr ("native-runtimectl: NAME: message") and the
// exit status of the one table in core/cli/cli_exit.h.

#include "core/cli/cli_exit.h"

#include <functional>

namespace nr::ctl {

// The body's own status, or the table's status for what it threw.
int guarded(const std::function<int()>& body);

} // namespace nr::ctl
