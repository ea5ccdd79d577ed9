// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which unit a process runs in, as the service manager's cgroup says: the
// kernel's answer, which the process itself cannot change.

#include <string>
#include <sys/types.h>

namespace nr::sys {

// The unit `pid` belongs to ("app.service"), or "" when it has none or the
// process is gone.
std::string unit_of_pid(pid_t pid);

} // namespace nr::sys
