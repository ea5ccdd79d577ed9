// SPDX-License-Identifier: Apache-2.0
#pragma once
// Preflight decisions: each host fact the adapters observe becomes a named
// check that passes or fails with an operator hint. Nothing here touches the
// host, so every verdict (including the failure hints) is unit-tested.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

#include "core/launch/landlock_abi.h"

namespace nr::core {

struct CheckResult {
    std::string name; // stable id, e.g. "userns"; the helper's refusal names it
    bool passed = false;
    std::string detail;
    std::string hint; // what the operator can do; empty when passed without a warning
    // A warning passes (neither preflight's exit status nor the helper's
    // gate counts it) yet is shown with its hint: a risk the configuration
    // takes on, not a host that cannot run sessions.
    bool warning = false;
};

// Check names, shared by the CLI, the helper gate and the docs.
inline constexpr const char* kCheckUserns = "userns";
inline constexpr const char* kCheckBwrap = "bwrap";
inline constexpr const char* kCheckHardlinks = "protected-hardlinks";
inline constexpr const char* kCheckSystemd = "systemd-version";
inline constexpr const char* kCheckCanary = "canary-session";
inline constexpr const char* kCheckDropins = "dropins";
inline constexpr const char* kCheckHelperDropin = "helper-dropin";
inline constexpr const char* kCheckSnapshotDir = "snapshot-dir";
inline constexpr const char* kCheckImmutable = "immutable-code";
inline constexpr const char* kCheckLandlock = "landlock";
inline constexpr const char* kCheckCgroups = "cgroups";
inline constexpr const char* kCheckProviderKey = "provider-key"; // a warning only (core/ops/provider_keys.h)

struct UsernsFacts {
    std::optional<std::string> max_user_namespaces;       // /proc/sys/user/max_user_namespaces
    std::optional<std::string> unprivileged_userns_clone; // Debian's kernel.unprivileged_userns_clone
    std::optional<std::string> apparmor_restrict;         // kernel.apparmor_restrict_unprivileged_userns
    bool bwrap_apparmor_profile = false;                  // /etc/apparmor.d/bwrap-userns-restrict
    int unshare_errno = 0; // unshare(CLONE_NEWUSER) + uid_map by an unprivileged child; 0 = worked
};
CheckResult judge_userns(const UsernsFacts& facts);

// `version` and `help` are what `bwrap --version` and `bwrap --help` print,
// nullopt when that did not run or exit 0; `options` the ones native-runtime passes.
CheckResult judge_bwrap(const std::string& path, bool root_owned_regular_file,
                        const std::optional<std::string>& version, const std::optional<std::string>& help,
                        const std::vector<std::string>& options);

// bwrap options (tokens starting with "--") of a planned argv, plus the
// ones the launcher adds itself.
std::vector<std::string> bwrap_options_used(const std::vector<std::string>& planned_argv);

// nullopt: the sysctl could not be read (unprivileged services often cannot).
CheckResult judge_protected_hardlinks(const std::optional<std::string>& value);

// systemd's Version property, e.g. "252.22-1~deb12u1".
CheckResult judge_systemd_version(const std::string& version);

// ProtectProc= and ProcSubset= exist since systemd 247.
inline constexpr int kMinimumSystemd = 247;

// `abi`: landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION),
// negative when the call failed with `error` (an errno).
CheckResult judge_landlock(long abi, int error);

// What /sys/fs/cgroup is: `fs_type` "cgroup2fs" (v2 only), "tmpfs" (v1
// controllers, with or without the unified hierarchy beside them) or what
// else statfs said ("" when it failed); `controllers` the unified
// hierarchy's cgroup.controllers when it is v2 only.
struct CgroupFacts {
    std::string fs_type;
    std::string controllers;
};

// The controllers a session's unit properties need: MemoryMax=,
// TasksMax=, CPUQuota=.
inline constexpr std::array<std::string_view, 3> kSessionControllers = {"memory", "pids", "cpu"};

// v2 only with every session controller: passes. v1 (a hybrid or legacy
// host): a warning, since systemd still applies the limits through the v1
// controllers but no supported host looks like that and the releases are
// tested on v2 only. Anything else fails.
CheckResult judge_cgroups(const CgroupFacts& facts);

struct CanaryOutcome {
    bool started = false;    // systemd accepted the transient unit
    std::string start_error; // systemd's refusal when not started
    std::string result;      // the service Result, e.g. "success", "exit-code", "timeout"
    int exit_status = -1;
    std::string output; // the launcher's and bwrap's stderr
};
CheckResult judge_canary(const CanaryOutcome& outcome);

// What a passed canary depends on. The helper keeps the pass for the rest
// of the boot and runs the canary again as soon as any of these differs.
struct CanaryInputs {
    std::string boot_id;         // /proc/sys/kernel/random/boot_id
    std::string kernel;          // uname: release and version
    std::string systemd_version; // the manager's Version property
    std::string config_digest;   // SHA-256 of the configuration file
    // path -> identity (device, inode, size, mode, owner, mtime, ctime) of
    // the helper, the launcher and bwrap.
    std::vector<std::pair<std::string, std::string>> binaries;
    // sysctls the sandbox setup depends on (user namespaces); absent ones
    // are recorded as such.
    std::vector<std::pair<std::string, std::string>> sysctls;
};

// The cache record for `inputs`: a versioned "name=value" text, one line
// each (newlines in values are escaped). A cached record is valid only when
// it equals the record of the inputs observed now.
std::string canary_cache_record(const CanaryInputs& inputs);

struct PathFacts {
    std::string path;
    bool exists = false;
    uid_t uid = 0;
    gid_t gid = 0;
    mode_t mode = 0; // st_mode
};

struct Principal {
    std::string name;
    uid_t uid = 0;
    std::vector<gid_t> gids;
};

// Whether `who` could change the entry (file content, or directory
// entries) by permission bits. A sticky world- or group-writable directory
// still counts as writable: new names can be created in it.
bool writable_by(const PathFacts& facts, const Principal& who);

// `chains`: per checked path, the path itself followed by its ancestors up
// to "/". Fails when any existing one is not owned by root or is writable
// by one of `principals` (the worker and the session users); a missing path
// counts through its ancestors (could it be created?).
CheckResult judge_immutable(const std::vector<std::vector<PathFacts>>& chains,
                            const std::vector<Principal>& principals);

// Mode 2770 (setgid, group rwx, nothing for others), group `group_name`.
CheckResult judge_snapshot_dir(const std::string& configured, const PathFacts& facts, const std::optional<gid_t>& group,
                               const std::string& group_name);

// One line per unit that is not in effect; empty `problems` passes. Units
// that do not want the helper and start after it (`without_helper`: their
// drop-in predates those lines, or something reset them) pass with a
// warning: their sessions are as isolated, but the helper starts on their
// first call instead of with them.
CheckResult judge_dropins(const std::vector<std::string>& units, const std::vector<std::string>& problems,
                          const std::vector<std::string>& without_helper);

// The helper's own drop-in (file operations' write access), judged from
// the conflicts systemd's read-back of native-runtimed.service produced.
CheckResult judge_helper_dropin(const std::vector<std::string>& problems);

// The word preflight prints a result under: "FAIL", "WARN" (passed with a
// warning) or "PASS".
std::string_view verdict_word(const CheckResult& result);

// The first failed check, or nullopt when all passed.
std::optional<CheckResult> first_failure(const std::vector<CheckResult>& results);

} // namespace nr::core
