// SPDX-License-Identifier: Apache-2.0
#pragma once
// The helper channel of a session started on systemd >= 257
// (core/launch/spec_delivery.h): a SOCK_SEQPACKET pair whose unit end
// systemd passes into the unit as ExtraFileDescriptors=. The helper sends
// the launch spec on it, as a sealed memfd it made; the launcher then uses
// it for what it would otherwise call the helper's bus methods for
// (ReportWaiting, HandOverListener), and closes its end before bwrap, so
// nothing of the session ever holds it. One message each:
//   helper -> launcher   'S' + the spec memfd
//   launcher -> helper   'W' + u32 sessions ahead (little-endian)
//                        'L' + the gateway listener; the helper answers
//                        'A' once registered, or closes the channel
//                        'D' done: the launcher closes its end now
//
// Nobody else can write into the pair: it has no name, the helper's end
// never leaves the helper, and the unit's end exists only in the unit. The
// launcher still checks what arrives as if it could (one descriptor, a
// memfd sealed against any change, made by root, at most
// core::kMaxLaunchSpecBytes), and fails closed on anything else.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
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
// new_launch_channel() when `wanted`, else two empty ends.
LaunchChannel new_launch_channel_if(bool wanted);

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

// The launcher's wait report; false when it could not be sent (it only
// informs the worker, so the caller goes on waiting).
bool report_waiting(int unit_end, std::uint32_t ahead);

// Tells the helper the launcher is done with the channel, so that the
// helper closes its end now rather than when systemd releases the unit's;
// best effort (false when it could not be sent).
bool report_done(int unit_end);

// Hands the gateway listener to the helper and waits at most `wait` for its
// answer. Error(LaunchFailed) when the helper closes the channel instead
// (it refused the registration) or does not answer.
void hand_over_listener(int unit_end, int listener, std::chrono::milliseconds wait);

// What the helper read from a launcher.
struct LauncherMessage {
    enum class Kind {
        Waiting,  // `ahead`
        Listener, // `listener`
        Done,     // the launcher is done with the channel
        Closed,   // no one holds the unit's end any more (the unit is gone)
        Invalid,  // anything else: `problem`; the helper closes the channel
    };
    Kind kind = Kind::Closed;
    std::uint32_t ahead = 0;
    UniqueFd listener;
    std::string problem;
};

// The next message waiting on `helper_end`; nullopt when none is.
std::optional<LauncherMessage> next_launcher_message(int helper_end);

// The helper's answer to a listener it registered. Throws LaunchFailed.
void acknowledge_listener(int helper_end);

} // namespace nr::sys
