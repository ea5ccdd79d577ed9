// SPDX-License-Identifier: Apache-2.0
#pragma once
// The exit statuses every binary ends with, as numbers. The table that maps
// a failure to one of them is native-runtimectl's (core/cli/cli_exit.h); the
// helper, the launcher and the supervisor need only the numbers, so they
// include this and nothing of the CLI.

namespace nr::core {

inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitUsage = 64;         // EX_USAGE
inline constexpr int kExitRefused = 65;       // EX_DATAERR
inline constexpr int kExitUnavailable = 69;   // EX_UNAVAILABLE
inline constexpr int kExitInternal = 70;      // EX_SOFTWARE
inline constexpr int kExitIoError = 74;       // EX_IOERR
inline constexpr int kExitConfig = 78;        // EX_CONFIG
inline constexpr int kExitRuntimeLimit = 124; // `run`: RuntimeMaxSec ended the session (as timeout(1))
inline constexpr int kExitLaunchFailed = 125; // the launcher failed before exec, so `run` too
inline constexpr int kExitSignalBase = 128;   // 128+N: signal N ended the session (as the shell says it)
inline constexpr int kExitEndLost = 255;      // `run`: the session ended but its result was lost

} // namespace nr::core
