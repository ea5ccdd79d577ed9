#pragma once
// How a session's end becomes native-runtimectl's exit status, kept apart
// from the bus code so it can be unit-tested and documented in one place.

#include <cstdint>
#include <string>

namespace nr::ctl {

inline constexpr int kExitCheckFailed = 1;    // a check or verification failed (drop-ins, preflight)
inline constexpr int kExitUsage = 64;         // EX_USAGE
inline constexpr int kExitRefused = 65;       // the helper refused the request
inline constexpr int kExitUnavailable = 69;   // EX_UNAVAILABLE: bus or helper unreachable
inline constexpr int kExitRuntimeLimit = 124; // RuntimeMaxSec ended it (as timeout(1))
inline constexpr int kExitLaunchFailed = 125; // the launcher failed before exec

// systemd's ExecMainCode/ExecMainStatus -> shell-style status: the command's
// own status when it exited, 128+N when signal N ended it.
int session_exit_status(const std::string& result, std::int32_t code, std::int32_t status);

} // namespace nr::ctl
