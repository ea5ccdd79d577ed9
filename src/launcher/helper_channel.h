// SPDX-License-Identifier: Apache-2.0
#pragma once
// What systemd passed (LISTEN_PID, LISTEN_FDS, LISTEN_FDNAMES), read
// before anything inherited is closed. The launcher takes exactly one
// descriptor, the helper channel (core::kHelperChannelName), passed by
// systemd >= 257 or by native-runtime-claim; native-runtime-claim itself
// takes none. Either way the variables are removed, so nothing this process
// starts sees them.

#include "sys/base/unique_fd.h"

namespace nr::launcher {

// The helper channel, close-on-exec. Error(LaunchFailed) when systemd
// passed anything else, or nothing.
sys::UniqueFd take_helper_channel();

// Error(LaunchFailed) when systemd passed any descriptor: native-runtime-claim
// is started only where systemd passes none, so one is someone else's doing.
void refuse_passed_descriptors();

} // namespace nr::launcher
