// SPDX-License-Identifier: Apache-2.0
#pragma once
// The system calls and socket families the session unit itself refuses,
// around bwrap: a second wall under the launcher's own program (the
// seccomp filter bwrap loads), enforced by systemd from the unit's first
// exec on, so the launcher phase and a sandbox whose own filter were
// missing are covered too, and `systemd-analyze security` sees it.
//
// Both filters systemd makes of these look at no argument of a frequent
// call: the syscall deny list names numbers only, and the address-family
// filter reads socket()'s first argument, socket() being rare next to
// openat, read or stat. The kernel's seccomp cache keeps deciding those
// from its bitmap ("One cacheable filter stack" in docs/security-model.md).

#include <string>
#include <vector>

#include "core/plan/unit_properties.h"

namespace nr::core {

// The members of systemd's groups @clock, @cpu-emulation, @debug, @module,
// @obsolete, @raw-io, @reboot and @swap, as systemd 252 and 257 define
// them, for every architecture. The unit names them one by one rather
// than by group, so that the helper's read-back can compare names.
const std::vector<std::string>& unit_denied_syscall_candidates();

// SystemCallFilter= (a deny list of the candidates except `unknown`, the
// names this host's libseccomp cannot resolve, which systemd would drop)
// with SystemCallErrorNumber=EPERM, and RestrictAddressFamilies= allowing
// AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK only (bwrap brings up the
// loopback of a new network namespace over netlink, and getaddrinfo asks
// it which address families the host has).
UnitProperties unit_syscall_properties(const std::vector<std::string>& unknown);

} // namespace nr::core
