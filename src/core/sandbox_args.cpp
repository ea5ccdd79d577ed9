#include "core/sandbox_args.h"

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
    // the adapter needs the host's (outbound API and DNS).
    add({"--unshare-all", "--unshare-user"});
    if (layout.network == NetworkMode::Host) {
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
    add({"--size", std::to_string(layout.tmp_size_bytes), "--perms", "1777", "--tmpfs", "/tmp"});
    add({"--chdir", layout.working_dir});
    args.emplace_back("--");
    args.insert(args.end(), agent_argv.begin(), agent_argv.end());
    return args;
}

} // namespace nr::core
