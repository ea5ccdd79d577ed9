// SPDX-License-Identifier: Apache-2.0
#pragma once
// `status`'s CGroup: block: the session unit's control group as systemd
// names it (its ControlGroup property) and the processes the kernel lists in
// it and below, read from the cgroup file system and /proc. What the
// processes call themselves is theirs: core/cli/cgroup_tree.h escapes it.

#include "core/cli/cgroup_tree.h"
#include "core/cli/json_output.h"
#include "sys/systemd/systemd_manager.h"

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace nr::ctl {

struct SessionProcesses {
    std::string control_group; // "" when the unit has none (not running)
    std::vector<core::CgroupProcess> processes;
    std::size_t omitted = 0; // processes beyond the bound, counted, not read
    std::string unreadable;  // why the group could not be listed; "" when it could
};

// At most this many processes are read and shown; more are only counted.
inline constexpr std::size_t kMaxStatusProcesses = 100;

// Never throws for what the caller may not read: another user's
// /proc/PID/cmdline leaves the command unset (the tree shows the name or
// "?"), a group that cannot be listed sets `unreadable`.
SessionProcesses read_session_processes(sys::SystemdManager& systemd, const sdbus::ObjectPath& path);

// The CGroup: block, each line cut to `columns` (0: no limit).
void print_session_processes(std::ostream& out, const SessionProcesses& view, std::size_t columns);

// {"control_group", "processes": [{"cgroup", "pid", "command"}], "processes_omitted"}
// merged into `json`.
void add_session_processes_json(core::Json& json, const SessionProcesses& view);

} // namespace nr::ctl
