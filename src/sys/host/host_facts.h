// SPDX-License-Identifier: Apache-2.0
#pragma once
// Facts about the host the planner needs but must not look up itself.

#include "core/plan/session_plan.h"

namespace nr::sys {

// /bin, /sbin, /lib, /lib32, /lib64, /libx32 when they are symlinks into
// /usr on this host (merged /usr), so the sandbox mirrors them.
std::vector<core::RootSymlink> observe_root_symlinks();

// The unit's denied syscalls this host's libseccomp cannot resolve, so
// systemd, which resolves them with the same library, would drop them.
std::vector<std::string> unknown_unit_syscalls();

// `delivery`: from the running systemd (SystemdManager::spec_delivery).
core::HostFacts observe_host(const std::string& launcher_path, core::SpecDelivery delivery);

} // namespace nr::sys
