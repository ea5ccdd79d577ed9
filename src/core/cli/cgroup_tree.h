// SPDX-License-Identifier: Apache-2.0
#pragma once
// `status`'s process tree: the processes of a session unit's control group
// and of the groups below it, drawn as `systemctl status` draws its CGroup:
// block. Everything shown comes from the session (command lines, names), so
// it is escaped (core/cli/terminal_text.h) and bounded.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nr::core {

struct CgroupProcess {
    std::string cgroup; // below the unit's control group: "" for the group itself, "a/b" below
    std::uint32_t pid = 0;
    std::optional<std::string> cmdline; // /proc/PID/cmdline as read; nullopt: unreadable
    std::optional<std::string> comm;    // /proc/PID/comm without its newline; nullopt: unreadable
};

// The process's command as one printable line: its command line, or, when
// that is unreadable or empty (another user's process, a kernel thread,
// a zombie), its name in brackets as ps shows it, or "?".
std::string process_command(const CgroupProcess& process);

struct CgroupTreeLimits {
    std::size_t max_processes = 50; // more are counted, not drawn
    std::size_t columns = 0;        // each tree line cut to this width; 0: no limit
};

// The lines of the tree, without a trailing newline each: first the control
// group's path, then its processes by PID and its sub-groups by name, each
// with ├─ or └─ and the │ of the levels above, a process as "PID COMMAND".
// `omitted` counts processes the reader already left out; together with
// those beyond max_processes they end the tree as one "N more processes"
// line.
std::vector<std::string> cgroup_tree_lines(std::string_view control_group, std::vector<CgroupProcess> processes,
                                           const CgroupTreeLimits& limits, std::size_t omitted = 0);

} // namespace nr::core
