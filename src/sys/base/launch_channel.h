// SPDX-License-Identifier: Apache-2.0
#pragma once
// The helper channel of a session started on systemd >= 257
// (core/launch/spec_delivery.h): a SOCK_SEQPACKET pair whose unit end
// systemd passes into the unit as ExtraFileDescriptors=. The helper sends
// one message on it, the launch spec as a sealed memfd it made; the
// launcher takes that one message and closes its end before bwrap.
//
// Nobody else can write into the pair: it has no name, the helper's end
// never leaves the helper, and the unit's end exists only in the unit. The
// launcher still checks what arrives as if it could (one descriptor, a
// memfd sealed against any change, made by root, at most
// core::kMaxLaunchSpecBytes), and fails closed on anything else.

#include <chrono>
#include <sys/types.h>
#include <utility>

#include "core/launch/launch_spec.h"
#include "sys/base/unique_fd.h"

namespace nr::sys {

struct LaunchChannel {
    UniqueFd helper_end;
    UniqueFd unit_end;
};

// Both ends close-on-exec and non-blocking. Throws SystemdFailure.
LaunchChannel new_launch_channel();

// The spec as a sealed memfd, in one message that never blocks (the pair
// is new and holds nothing else). Throws LaunchFailed.
void send_launch_spec(int helper_end, const core::LaunchSpec& spec);

// Waits at most `wait` for the helper's message and returns the spec it
// carries, decoded (core::decode_launch_spec). Error(LaunchFailed) when
// the helper closes its end first (it withdrew the launch: the hardening
// read-back failed, or it stopped), the wait ends, or the message is not
// exactly one memfd sealed against any change and owned by `helper_uid`
// (0: the helper runs as root).
core::LaunchSpec receive_launch_spec(int unit_end, std::chrono::milliseconds wait, uid_t helper_uid);

} // namespace nr::sys
