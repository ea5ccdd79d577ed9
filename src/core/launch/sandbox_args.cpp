// SPDX-License-Identifier: Apache-2.0
#include "core/launch/sandbox_args.h"

#include "core/base/error.h"
#include "core/base/path_policy.h"

#include <algorithm>

namespace nr::core {

namespace {

struct Mount {
    std::string path;
    bool writable = false;
};

// Parents must be mounted before children, otherwise a later parent mount
// would hide the child; lexicographic order on '/'-separated paths gives that.
std::vector<Mount> ordered_mounts(const SandboxLayout& layout)
{
    std::vector<Mount> mounts;
    for (const auto& path : layout.read_only) {
        mounts.push_back({path, false});
    }
    for (const auto& path : layout.read_write) {
        mounts.push_back({path, true});
    }
    std::stable_sort(mounts.begin(), mounts.end(), [](const Mount& a, const Mount& b) { return a.path < b.path; });
    return mounts;
}

} // namespace

std::vector<std::string> bwrap_argv(const std::string& bwrap_path, const SandboxLayout& layout,
                                    const std::vector<std::string>& agent_argv)
{
    std::vector<std::string> args{bwrap_path};
    auto add = [&args](std::initializer_list<std::string> items) { args.insert(args.end(), items); };

    // Every namespace bwrap supports, then give back only the network when
    // the adapter needs the one bwrap starts in: the host's (outbound API
    // and DNS), or for a gateway session the launcher's own, whose only
    // way out is the gateway's listener.
    add({"--unshare-all", "--unshare-user"});
    if (layout.network == NetworkMode::Host || layout.network == NetworkMode::Gateway) {
        add({"--share-net"});
    }
    if (!layout.nested_userns) {
        add({"--disable-userns", "--assert-userns-disabled"});
    }
    add({"--die-with-parent", "--new-session", "--cap-drop", "ALL"});

    for (const auto& mount : ordered_mounts(layout)) {
        add({mount.writable ? "--bind" : "--ro-bind", mount.path, mount.path});
    }
    for (const auto& link : layout.symlinks) {
        add({"--symlink", link.target, link.path});
    }
    add({"--proc", "/proc", "--dev", "/dev"});
    const auto tmp_size = std::to_string(layout.tmp_size_bytes);
    add({"--size", tmp_size, "--perms", "1777", "--tmpfs", "/tmp"});
    // POSIX shared memory and semaphores (sem_open, Python's
    // multiprocessing) need a writable /dev/shm; it gets its own sized tmpfs
    // so that /dev itself can be read-only.
    add({"--size", tmp_size, "--perms", "1777", "--tmpfs", "/dev/shm"});
    // bwrap's root and /dev are tmpfs mounts without a size, owned by the
    // session user inside its user namespace: writable, and an unbounded
    // way around tmp_size. Every directory bwrap created for a mount point
    // lies on them, so both are made read-only after the last mount.
    // Non-recursive: the binds and tmpfs mounts on them keep their modes.
    add({"--remount-ro", "/dev", "--remount-ro", "/"});
    add({"--chdir", layout.working_dir});
    args.emplace_back("--");
    args.insert(args.end(), agent_argv.begin(), agent_argv.end());
    return args;
}

namespace {

std::vector<std::string>::const_iterator agent_separator(const std::vector<std::string>& planned_argv)
{
    const auto separator = std::find(planned_argv.begin(), planned_argv.end(), "--");
    if (planned_argv.empty() || separator == planned_argv.end()) {
        fail(ErrorKind::LaunchFailed, "the sandbox command has no '--' before the agent's argv");
    }
    return separator;
}

} // namespace

std::string bwrap_args_data(const std::vector<std::string>& planned_argv, const std::vector<std::string>& environment,
                            int seccomp_fd)
{
    const auto separator = agent_separator(planned_argv);
    std::string data;
    auto append = [&data](const std::string& item) {
        data += item;
        data += '\0';
    };
    for (auto it = planned_argv.begin() + 1; it != separator; ++it) {
        append(*it);
    }
    for (const auto& entry : environment) {
        const auto eq = entry.find('=');
        if (eq == std::string::npos || eq == 0) {
            fail(ErrorKind::LaunchFailed, "malformed environment entry for the sandbox");
        }
        append("--setenv");
        append(entry.substr(0, eq));
        append(entry.substr(eq + 1));
    }
    append("--seccomp");
    append(std::to_string(seccomp_fd));
    return data;
}

std::vector<std::string> bind_from_descriptors(const std::vector<std::string>& planned_argv,
                                               const MountDescriptors& descriptors)
{
    const auto separator = agent_separator(planned_argv);
    std::vector<std::string> out(planned_argv.begin(), separator);
    const auto& beneath = descriptors.descriptors_only_beneath;
    std::size_t replaced = 0;
    for (std::size_t i = 1; i + 2 < out.size(); ++i) {
        const bool read_only = out[i] == "--ro-bind";
        if (!read_only && out[i] != "--bind") {
            continue;
        }
        const auto& fds = read_only ? descriptors.read_only : descriptors.read_write;
        const auto fd = out[i + 1] == out[i + 2] ? fds.find(out[i + 1]) : fds.end();
        if (fd == fds.end()) {
            const auto& target = out[i + 2];
            if (!beneath.empty() && target != beneath && path_is_within(target, beneath)) {
                fail(ErrorKind::LaunchFailed, target + " would be mounted by name, not from the descriptor opened");
            }
            i += 2;
            continue;
        }
        out[i] = read_only ? "--ro-bind-fd" : "--bind-fd";
        out[i + 1] = std::to_string(fd->second);
        ++replaced;
        i += 2;
    }
    if (replaced != descriptors.read_write.size() + descriptors.read_only.size()) {
        fail(ErrorKind::LaunchFailed,
             "an opened directory or protected path has no mount of its kind in the sandbox plan");
    }
    out.insert(out.end(), separator, planned_argv.end());
    return out;
}

std::vector<std::string> bwrap_exec_argv(const std::vector<std::string>& planned_argv, int args_fd)
{
    const auto separator = agent_separator(planned_argv);
    std::vector<std::string> argv{planned_argv.front(), "--args", std::to_string(args_fd)};
    argv.insert(argv.end(), separator, planned_argv.end());
    return argv;
}

} // namespace nr::core
