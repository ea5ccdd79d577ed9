#pragma once
// Every verb of native-runtimectl runs inside guarded(): whatever it throws
// becomes one line on stderr ("native-runtimectl: NAME: message") and the
// exit status of the one table in core/cli_exit.h.

#include "core/cli_exit.h"

#include <functional>

namespace nr::ctl {

using core::kExitCheckFailed;
using core::kExitConfig;
using core::kExitEndLost;
using core::kExitInternal;
using core::kExitIoError;
using core::kExitRefused;
using core::kExitRuntimeLimit;
using core::kExitUnavailable;
using core::kExitUsage;
using core::session_exit_status;

// The body's own status, or the table's status for what it threw.
int guarded(const std::function<int()>& body);

} // namespace nr::ctl
