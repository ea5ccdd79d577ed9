// SPDX-License-Identifier: Apache-2.0
#pragma once
// Facts about the host the planner needs but must not look up itself.

#include "core/plan/session_plan.h"

namespace nr::sys {

// /bin, /sbin, /lib, /lib32, /lib64, /libx32 when they are symlinks into
// /usr on this host (merged /usr), so the sandbox mirrors them.
std::vector<core::RootSymlink> observe_root_symlinks();

core::HostFacts observe_host(const std::string& launcher_path);

} // namespace nr::sys
