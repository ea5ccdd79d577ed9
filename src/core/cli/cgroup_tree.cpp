// SPDX-License-Identifier: Apache-2.0
#include "core/cli/cgroup_tree.h"

#include "core/cli/terminal_text.h"

#include <algorithm>
#include <map>
#include <memory>

namespace nr::core {

namespace {

struct Group {
    std::vector<const CgroupProcess*> processes;
    std::map<std::string, std::unique_ptr<Group>> children; // by name: a stable order
};

Group& group_at(Group& root, std::string_view path)
{
    Group* group = &root;
    while (!path.empty()) {
        const auto slash = path.find('/');
        const auto name = path.substr(0, slash);
        path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
        if (name.empty()) {
            continue;
        }
        auto& child = group->children[std::string(name)];
        if (!child) {
            child = std::make_unique<Group>();
        }
        group = child.get();
    }
    return *group;
}

void draw(const Group& group, const std::string& prefix, std::size_t columns, std::vector<std::string>& lines)
{
    const auto count = group.processes.size() + group.children.size();
    std::size_t index = 0;
    const auto branch = [&] { return ++index == count ? "└─" : "├─"; };
    for (const auto* process : group.processes) {
        lines.push_back(
            fit_columns(prefix + branch() + std::to_string(process->pid) + " " + process_command(*process), columns));
    }
    for (const auto& [name, child] : group.children) {
        const bool last = index + 1 == count;
        lines.push_back(fit_columns(prefix + branch() + escape_control(name), columns));
        draw(*child, prefix + (last ? "  " : "│ "), columns, lines);
    }
}

} // namespace

std::string process_command(const CgroupProcess& process)
{
    if (process.cmdline && process.cmdline->find_first_not_of('\0') != std::string::npos) {
        return cmdline_text(*process.cmdline);
    }
    if (process.comm && !process.comm->empty()) {
        return "[" + escape_control(*process.comm) + "]";
    }
    return "?";
}

std::vector<std::string> cgroup_tree_lines(std::string_view control_group, std::vector<CgroupProcess> processes,
                                           const CgroupTreeLimits& limits, std::size_t omitted)
{
    // The same processes are drawn whatever order the reader found them in.
    std::sort(processes.begin(), processes.end(), [](const CgroupProcess& a, const CgroupProcess& b) {
        return a.cgroup != b.cgroup ? a.cgroup < b.cgroup : a.pid < b.pid;
    });
    if (processes.size() > limits.max_processes) {
        omitted += processes.size() - limits.max_processes;
        processes.resize(limits.max_processes);
    }
    Group root;
    for (const auto& process : processes) {
        group_at(root, process.cgroup).processes.push_back(&process);
    }
    std::vector<std::string> lines{fit_columns(escape_control(control_group), limits.columns)};
    draw(root, "", limits.columns, lines);
    if (omitted > 0) {
        lines.push_back("(" + std::to_string(omitted) + " more " + (omitted == 1 ? "process" : "processes") +
                        " not shown)");
    }
    return lines;
}

} // namespace nr::core
