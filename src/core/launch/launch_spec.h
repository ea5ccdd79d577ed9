// SPDX-License-Identifier: Apache-2.0
#pragma once
// The launch spec: everything native-runtime-launch needs from the helper to
// build the sandbox, sent once over the unit's helper channel
// (sys/base/launch_channel.h). It may hold the adapter's credentials (in
// `environment`), so it never appears in a unit property, argv or file.
//
// LaunchSpecWire is the same spec as plain fields, one per item the channel
// carries. The helper encodes, the launcher decodes;
// core/launch/launch_spec_bytes.h is the only code that turns these fields
// into bytes and back.

#include <cstdint>
#include <string>
#include <vector>

#include "core/launch/host_auth.h"
#include "core/launch/protected_paths.h"
#include "core/launch/seccomp_types.h"

namespace nr::core {

// Directories the launcher creates as the session user before exec, each
// relative to `base` and walked component by component without following
// symlinks.
struct PrivateDirs {
    std::string base;
    std::vector<std::string> relative;
};

// A directory the helper checked before starting the unit (a requested
// workspace, a provider session directory), by the identity it had then.
// The launcher opens it again, refuses it unless it is the same directory,
// and has bwrap bind that descriptor (--bind-fd) instead of the path name,
// so swapping a path component after the check changes nothing.
struct CheckedDir {
    std::string path;
    std::uint64_t device = 0;
    std::uint64_t inode = 0;

    bool operator==(const CheckedDir&) const = default;
};

struct LaunchSpec {
    std::vector<std::string> bwrap_argv;
    std::vector<CheckedDir> checked_dirs;
    std::vector<std::string> environment;
    SeccompPolicy seccomp;
    PrivateDirs dirs;
    // Host-auth queue the launcher waits in (relative to dirs.base).
    AdmissionSpec admission;
    // Non-zero for a `network: gateway` session: the launcher makes the
    // session's network namespace and listens on 127.0.0.1:gateway_port in
    // it for the gateway before it starts bwrap.
    std::uint16_t gateway_port = 0;
    // Paths in the owner's home (`base`) the session may not change. The
    // launcher creates what is missing, opens each path and each directory
    // on the way without following a symlink, and has bwrap mount those
    // descriptors (read-only, and the directories on the way onto
    // themselves) in place of the plan's mounts by name.
    ProtectedPaths protected_paths;
};

// One denied_syscalls entry, a(sia(utt)): (name, errno, conditions), where
// conditions holds at most one (argument index, mask, value).
struct SyscallRuleWire {
    std::string name;
    std::int32_t errno_value = 0;
    std::vector<ArgumentMatch> conditions;

    bool operator==(const SyscallRuleWire&) const = default;
};

// Claim's out arguments, in their order on the bus.
struct LaunchSpecWire {
    std::vector<std::string> bwrap_argv;
    std::vector<std::string> environment;
    std::vector<SyscallRuleWire> denied_syscalls;
    bool kill_foreign_abis = true;
    std::string dirs_base;
    std::vector<std::string> private_dirs;
    // Empty when the adapter is client-managed.
    std::string admission_queue;
    std::vector<CheckedDir> checked_dirs;
    // 0: not a gateway session.
    std::uint16_t gateway_port = 0;
    // The owner's home, or empty when nothing is protected.
    std::string protected_base;
    // a(sb): (path relative to protected_base, is a directory).
    std::vector<ProtectedPath> protected_paths;

    bool operator==(const LaunchSpecWire&) const = default;
};

inline constexpr std::int32_t kMaxErrno = 4095;
inline constexpr unsigned kSyscallArguments = 6;

LaunchSpecWire encode_launch_spec(const LaunchSpec& spec);

// The launcher applies a spec exactly or not at all, so anything it could
// not apply as sent is refused with Error(LaunchFailed) naming the field:
// an empty bwrap argv or one whose program is not a canonical absolute
// path; a NUL in any string; an environment entry that is not NAME=VALUE;
// a syscall name outside [a-z0-9_] (1-64 bytes), an errno outside
// 1..4095, more than one condition, an argument index above 5 or a value
// with bits outside its mask; a dirs base or checked directory that is not
// a canonical absolute path; a private directory or admission queue that is
// not a canonical relative path; protected paths that
// core::check_protected_paths refuses, a protected base that is not a
// canonical absolute path when there are protected paths, or one that is
// set when there are none. encode_launch_spec of the result gives back
// `wire` exactly.
LaunchSpec decode_launch_spec(const LaunchSpecWire& wire);

} // namespace nr::core
