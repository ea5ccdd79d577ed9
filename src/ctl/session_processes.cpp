// SPDX-License-Identifier: Apache-2.0
#include "ctl/session_processes.h"

#include "core/cli/terminal_text.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <optional>

namespace nr::ctl {

namespace {

namespace fs = std::filesystem;

// Width of status's labels ("   CGroup: "), so the tree lines up under it.
constexpr std::size_t kLabelWidth = 11;
// A session cannot create groups (nothing is delegated to it), but the
// walk is bounded all the same.
constexpr std::size_t kMaxGroups = 64;
// Enough of a command line to recognise it; the line is cut anyway.
constexpr std::size_t kMaxCmdline = 4096;

bool is_cgroup2(const char* path)
{
    struct statfs info {};
    return ::statfs(path, &info) == 0 && info.f_type == CGROUP2_SUPER_MAGIC;
}

// Where systemd's own hierarchy is mounted: /sys/fs/cgroup on a v2-only
// host; on a hybrid host (Debian 12's v1 layout with the unified hierarchy
// beside it) both /sys/fs/cgroup/unified and the named v1 hierarchy
// /sys/fs/cgroup/systemd mirror systemd's tree; on a pure v1 host only the
// latter exists.
fs::path systemd_hierarchy()
{
    if (is_cgroup2("/sys/fs/cgroup")) {
        return "/sys/fs/cgroup";
    }
    if (is_cgroup2("/sys/fs/cgroup/unified")) {
        return "/sys/fs/cgroup/unified";
    }
    return "/sys/fs/cgroup/systemd";
}

std::optional<std::string> read_small_file(const fs::path& path, std::size_t limit)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        return std::nullopt;
    }
    std::string text;
    std::array<char, 1024> buffer{};
    while (text.size() < limit) {
        const auto n = ::read(fd, buffer.data(), std::min(buffer.size(), limit - text.size()));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        text.append(buffer.data(), static_cast<std::size_t>(n));
    }
    ::close(fd);
    return text;
}

std::vector<std::uint32_t> group_pids(const fs::path& group)
{
    std::vector<std::uint32_t> pids;
    std::ifstream procs(group / "cgroup.procs");
    for (std::string line; std::getline(procs, line);) {
        std::uint32_t pid = 0;
        const auto [end, error] = std::from_chars(line.data(), line.data() + line.size(), pid);
        if (error == std::errc() && end == line.data() + line.size() && pid > 0) {
            pids.push_back(pid);
        }
    }
    return pids;
}

core::CgroupProcess read_process(std::string cgroup, std::uint32_t pid)
{
    const fs::path proc = fs::path("/proc") / std::to_string(pid);
    core::CgroupProcess process{std::move(cgroup), pid, read_small_file(proc / "cmdline", kMaxCmdline),
                                read_small_file(proc / "comm", 64)};
    if (process.comm && !process.comm->empty() && process.comm->back() == '\n') {
        process.comm->pop_back();
    }
    return process;
}

} // namespace

SessionProcesses read_session_processes(sys::SystemdManager& systemd, const sdbus::ObjectPath& path)
{
    SessionProcesses view;
    try {
        view.control_group = systemd.unit_property(path, sys::kServiceInterface, "ControlGroup").get<std::string>();
    } catch (const sdbus::Error& e) {
        view.unreadable = "systemd did not say: " + e.getMessage();
        return view;
    }
    if (view.control_group.empty()) {
        return view;
    }
    const fs::path root = systemd_hierarchy() / fs::path(view.control_group).relative_path();
    std::vector<fs::path> groups{root};
    std::error_code error;
    fs::recursive_directory_iterator walk(root, error);
    if (error) {
        view.unreadable = root.string() + ": " + error.message();
        return view;
    }
    for (; walk != fs::recursive_directory_iterator() && groups.size() < kMaxGroups; walk.increment(error)) {
        if (error) {
            break;
        }
        if (walk->is_directory(error) && !walk->is_symlink(error)) {
            groups.push_back(walk->path());
        }
    }
    for (const auto& group : groups) {
        const auto relative = group == root ? std::string() : group.lexically_relative(root).string();
        for (const auto pid : group_pids(group)) {
            if (view.processes.size() < kMaxStatusProcesses) {
                view.processes.push_back(read_process(relative, pid));
            } else {
                ++view.omitted;
            }
        }
    }
    return view;
}

void print_session_processes(std::ostream& out, const SessionProcesses& view, std::size_t columns)
{
    if (!view.unreadable.empty()) {
        out << "   CGroup: - (" << core::escape_control(view.unreadable) << ")\n";
        return;
    }
    if (view.control_group.empty()) {
        return;
    }
    // However narrow the terminal, a PID and the start of its command.
    const auto tree_columns = columns == 0 ? 0 : std::max<std::size_t>(columns, kLabelWidth + 20) - kLabelWidth;
    const core::CgroupTreeLimits limits{kMaxStatusProcesses, tree_columns};
    const auto lines = core::cgroup_tree_lines(view.control_group, view.processes, limits, view.omitted);
    bool first = true;
    for (const auto& line : lines) {
        out << (first ? "   CGroup: " : "           ") << line << '\n';
        first = false;
    }
}

void add_session_processes_json(core::Json& json, const SessionProcesses& view)
{
    json["control_group"] = view.control_group.empty() ? core::Json() : core::Json(view.control_group);
    auto processes = core::Json::array();
    for (const auto& process : view.processes) {
        processes.push_back(core::Json{{"cgroup", process.cgroup.empty() ? "/" : "/" + process.cgroup},
                                       {"pid", process.pid},
                                       {"command", core::process_command(process)}});
    }
    json["processes"] = view.unreadable.empty() ? processes : core::Json();
    json["processes_omitted"] = view.omitted;
}

} // namespace nr::ctl
