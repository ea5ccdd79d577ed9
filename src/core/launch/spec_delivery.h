// SPDX-License-Identifier: Apache-2.0
#pragma once
// How a session's launcher gets its helper channel (one end of a socket
// pair, named kHelperChannelName), on which the helper sends the launch
// spec as a sealed memfd (core/launch/launch_spec_bytes.h); chosen by the
// helper from the running systemd's version:
//   HelperChannel  systemd >= 257: the unit is started with the channel as
//                  ExtraFileDescriptors=, and its ExecStart is the launcher;
//                  Launcher.Claim refuses that launch.
//   Claim          older systemd, which refuses ExtraFileDescriptors= for a
//                  transient unit (PropertyReadOnly on 252): ExecStart is
//                  native-runtime-claim, which gets the channel from
//                  Launcher.Claim with the token on its command line and
//                  execs the launcher with it, passed as systemd would.
// Either way the launcher is the same program, and the spec leaves the
// helper only after the unit's hardening read-back passed.

#include <chrono>
#include <string>
#include <string_view>

namespace nr::core {

enum class SpecDelivery { Claim, HelperChannel };

inline constexpr int kFirstSystemdPassingDescriptors = 257;
// How long the helper keeps a launch's spec for its launcher, and so how
// long a launcher waits for it on either path.
inline constexpr std::chrono::seconds kLaunchSpecDeadline{120};
inline constexpr const char* kHelperChannelName = "nr-helper-channel";

// From the manager's Version property ("257.9-1~deb13u1", "252.38-1~deb12u1").
// A version that does not start with a number gets Claim, the path every
// supported systemd takes.
SpecDelivery spec_delivery_for(std::string_view systemd_version);

// For preflight and the helper's start record.
std::string describe(SpecDelivery delivery);

} // namespace nr::core
