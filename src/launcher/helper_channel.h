// SPDX-License-Identifier: Apache-2.0
#pragma once
// What systemd passed the launcher (LISTEN_PID, LISTEN_FDS,
// LISTEN_FDNAMES), read before anything inherited is closed: with
// --spec-channel exactly one descriptor, the helper channel
// (core::kHelperChannelName); without it none at all. Either way the
// variables are removed, so nothing this process starts sees them.

#include "sys/base/unique_fd.h"

namespace nr::launcher {

// The helper channel, close-on-exec. Error(LaunchFailed) when systemd
// passed anything else, or nothing.
sys::UniqueFd take_helper_channel();

// Error(LaunchFailed) when systemd passed any descriptor: a launcher that
// claims its spec over the bus was not started to read one.
void refuse_passed_descriptors();

} // namespace nr::launcher
