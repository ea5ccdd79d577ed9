// SPDX-License-Identifier: Apache-2.0
#pragma once
// Landlock scoping (ABI 6, Linux 6.12): once applied, the process and its
// descendants can neither connect to abstract unix sockets nor send signals
// to processes created outside their Landlock domain. A session that shares
// the host network namespace shares its abstract socket namespace too, and
// neither mount namespaces nor seccomp (which cannot read the sockaddr) can
// hide those sockets; this can.

namespace nr::sys {

// The kernel's Landlock ABI version, or -errno when Landlock is disabled
// or the call is refused (ENOSYS, EOPNOTSUPP, or a seccomp filter's errno).
long landlock_abi();

// Applies both scopes to the calling process. Requires NoNewPrivileges
// (the unit sets it). Throws core::Error(LaunchFailed) when the kernel's
// Landlock ABI is older than core::kLandlockAbiRequired or Landlock is disabled: no weaker fallback.
void scope_abstract_sockets_and_signals();

} // namespace nr::sys
