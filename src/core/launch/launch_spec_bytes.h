// SPDX-License-Identifier: Apache-2.0
#pragma once
// The launch spec as bytes: what the helper writes into the sealed memfd it
// sends over a session's helper channel (systemd >= 257, where the channel
// reaches the unit as ExtraFileDescriptors=; docs/lifecycle.md). It is the
// same LaunchSpecWire that Launcher.Claim returns on the bus, field by field
// in that order, so both paths end in the one decode_launch_spec.
//
// Layout, little-endian, nothing implied:
//   magic "nr-spec\x01"
//   string       = u32 length, bytes
//   list of X    = u32 count, X...
//   bwrap_argv, environment   list of string
//   denied_syscalls           list of (string name, i32 errno,
//                             list of (u32 index, u64 mask, u64 value))
//   kill_foreign_abis         u8 0|1
//   dirs_base                 string
//   private_dirs              list of string
//   admission_queue           string
//   checked_dirs              list of (string path, u64 device, u64 inode)
//   gateway_port              u16
//   protected_base            string
//   protected_paths           list of (string relative, u8 0|1)
//
// The reader is strict: a wrong magic, a length or count past the end, a
// flag byte other than 0 or 1, bytes left over, or more than
// kMaxLaunchSpecBytes in all are refused with Error(LaunchFailed) naming
// the field, never read as a shorter spec.

#include <cstddef>
#include <string>
#include <string_view>

#include "core/launch/launch_spec.h"

namespace nr::core {

// Far above any real spec (argv, environment and a few hundred rules are
// tens of KiB), and small enough that the launcher reads it in one buffer.
inline constexpr std::size_t kMaxLaunchSpecBytes = std::size_t{4} << 20U;

std::string launch_spec_bytes(const LaunchSpecWire& wire);

LaunchSpecWire launch_spec_from_bytes(std::string_view bytes);

} // namespace nr::core
