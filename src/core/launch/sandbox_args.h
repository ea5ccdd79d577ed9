// SPDX-License-Identifier: Apache-2.0
#pragma once
// The bubblewrap command line: a positive list of mounts on an empty root.
// Mechanism (bwrap) stays separate from this policy, which is why the argv is
// computed here as plain strings that unit tests can read.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/base/network_policy.h"

namespace nr::core {

// A compatibility symlink at the root such as /bin -> usr/bin on merged-/usr
// hosts, observed by the adapter so the sandbox mirrors the host layout.
struct RootSymlink {
    std::string path;
    std::string target;
};

struct SandboxLayout {
    std::vector<std::string> read_only;  // host paths mounted read-only at the same place
    std::vector<std::string> read_write; // host paths mounted read-write at the same place
    std::vector<RootSymlink> symlinks;
    std::string working_dir;
    std::uint64_t tmp_size_bytes = 0;
    NetworkMode network = NetworkMode::Host;
    bool nested_userns = false;
};

// bwrap argv (argv[0] = bwrap path), ending with "--" and the agent argv.
// The launcher adds --seccomp FD itself because only it owns the fd.
std::vector<std::string> bwrap_argv(const std::string& bwrap_path, const SandboxLayout& layout,
                                    const std::vector<std::string>& agent_argv);

// How the launcher hands the plan to bwrap: every option and the agent's
// environment (as --setenv) travel as NUL-separated data through --args FD,
// and bwrap itself starts with an empty environment. /proc/<pid>/cmdline
// and /proc/<pid>/environ of bwrap, outside the sandbox and as PID 1 inside
// it, then hold no credential; only the agent's own processes do.
// `planned_argv` is bwrap_argv()'s result. Both throw Error(LaunchFailed)
// when it has no "--"; the first also when an environment entry has no '='.
std::string bwrap_args_data(const std::vector<std::string>& planned_argv, const std::vector<std::string>& environment,
                            int seccomp_fd);

// Descriptors the launcher opened for the plan's mounts, by mount path.
struct MountDescriptors {
    // Directories bound read-write: checked directories, and the
    // directories between the home and a protected path.
    std::map<std::string, int> read_write;
    // Protected paths, bound read-only.
    std::map<std::string, int> read_only;
    // Every host mount strictly beneath this directory (the owner's home
    // when it has protected paths) must come from a descriptor; empty: no
    // such rule.
    std::string descriptors_only_beneath;
};

// Replaces each planned "--bind PATH PATH" whose PATH is a key of
// `read_write` by "--bind-fd FD PATH", and each "--ro-bind PATH PATH" whose
// PATH is a key of `read_only` by "--ro-bind-fd FD PATH": bwrap then mounts
// the file or directory the descriptor refers to, not whatever the name
// leads to by then. Throws Error(LaunchFailed) when a PATH has no planned
// mount of its kind (the launcher would otherwise have opened something
// the plan never mounts), or when a mount beneath
// `descriptors_only_beneath` is left to be made by name.
std::vector<std::string> bind_from_descriptors(const std::vector<std::string>& planned_argv,
                                               const MountDescriptors& descriptors);

// bwrap --args FD -- agent argv...
std::vector<std::string> bwrap_exec_argv(const std::vector<std::string>& planned_argv, int args_fd);

} // namespace nr::core
