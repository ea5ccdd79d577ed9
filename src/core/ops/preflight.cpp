// SPDX-License-Identifier: Apache-2.0
#include "core/ops/preflight.h"

#include "core/base/joined.h"
#include "core/base/unit_name.h"
#include "core/launch/spec_delivery.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <iterator>
#include <set>
#include <sstream>
#include <sys/stat.h>

namespace nr::core {

namespace {

CheckResult pass(const char* name, std::string detail)
{
    return {name, true, std::move(detail), ""};
}

CheckResult failed(const char* name, std::string detail, std::string hint)
{
    return {name, false, std::move(detail), std::move(hint)};
}

std::string trimmed(const std::optional<std::string>& value)
{
    if (!value) {
        return {};
    }
    auto text = *value;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
        text.pop_back();
    }
    return text;
}

std::string octal(mode_t mode)
{
    static constexpr const char* kDigits = "01234567";
    std::string out;
    for (int shift = 9; shift >= 0; shift -= 3) {
        out += kDigits[(mode >> static_cast<unsigned>(shift)) & 07U];
    }
    return out;
}

bool in_groups(const Principal& who, gid_t gid)
{
    return std::find(who.gids.begin(), who.gids.end(), gid) != who.gids.end();
}

} // namespace

CheckResult judge_userns(const UsernsFacts& facts)
{
    const auto restrict = trimmed(facts.apparmor_restrict) == "1";
    std::string apparmor_note;
    if (restrict) {
        apparmor_note =
            std::string("; AppArmor restricts unprivileged user namespaces "
                        "(kernel.apparmor_restrict_unprivileged_userns=1), profile bwrap-userns-restrict ") +
            (facts.bwrap_apparmor_profile ? "present" : "absent");
    }
    if (facts.unshare_errno == 0) {
        if (restrict && !facts.bwrap_apparmor_profile) {
            return failed(kCheckUserns, "a user namespace was created, but without capabilities" + apparmor_note,
                          "install the distribution's bwrap-userns-restrict AppArmor profile for /usr/bin/bwrap "
                          "(Ubuntu: apparmor package), or an operator-approved profile allowing userns for bwrap; "
                          "never a second profile attaching to /usr/bin/bwrap");
        }
        return pass(kCheckUserns, "an unprivileged process can create a user namespace" + apparmor_note);
    }
    const std::string detail = std::string("unprivileged unshare(CLONE_NEWUSER) failed: ") +
                               std::strerror(facts.unshare_errno) + apparmor_note;
    if (trimmed(facts.max_user_namespaces) == "0") {
        return failed(kCheckUserns, detail + "; user.max_user_namespaces=0",
                      "sysctl -w user.max_user_namespaces=15000 and persist it in /etc/sysctl.d/");
    }
    if (trimmed(facts.unprivileged_userns_clone) == "0") {
        return failed(kCheckUserns, detail + "; kernel.unprivileged_userns_clone=0",
                      "sysctl -w kernel.unprivileged_userns_clone=1 and persist it in /etc/sysctl.d/");
    }
    if (restrict) {
        return failed(kCheckUserns, detail,
                      "AppArmor denies unprivileged user namespaces: keep the distribution's bwrap-userns-restrict "
                      "profile loaded for /usr/bin/bwrap (aa-status), do not disable the restriction globally");
    }
    return failed(kCheckUserns, detail,
                  "check seccomp/LSM policies of the calling service and container runtime (unshare is denied)");
}

std::vector<std::string> bwrap_options_used(const std::vector<std::string>& planned_argv)
{
    std::vector<std::string> options{"--args", "--seccomp"};
    for (const auto& arg : planned_argv) {
        if (arg == "--") {
            break; // the agent's own argv follows
        }
        if (arg.starts_with("--") && std::find(options.begin(), options.end(), arg) == options.end()) {
            options.push_back(arg);
        }
    }
    std::sort(options.begin(), options.end());
    return options;
}

CheckResult judge_bwrap(const std::string& path, bool root_owned_regular_file,
                        const std::optional<std::string>& version, const std::optional<std::string>& help_output,
                        const std::vector<std::string>& options)
{
    if (!root_owned_regular_file) {
        return failed(kCheckBwrap, path + " is missing or not a root-owned regular file",
                      "apt-get install bubblewrap (or set `bwrap:` in the config to a root-owned bwrap)");
    }
    if (!help_output) {
        return failed(kCheckBwrap, path + " does not run (`" + path + " --help` failed)",
                      "apt-get install --reinstall bubblewrap (or set `bwrap:` in the config to a working bwrap)");
    }
    const std::string& help = *help_output;
    const auto named = path + " (" + version.value_or("version unknown") + ")";
    std::vector<std::string> missing;
    // Help lines read "    --option ARG   text": an option counts only as
    // a whole word ("--dev" must not be found inside "--dev-bind").
    const auto listed = [&](const std::string& option) {
        for (auto at = help.find(option); at != std::string::npos; at = help.find(option, at + 1)) {
            const auto end = at + option.size();
            if (end == help.size() || help[end] == ' ' || help[end] == '\n') {
                return true;
            }
        }
        return false;
    };
    for (const auto& option : options) {
        if (!listed(option)) {
            missing.push_back(option);
        }
    }
    if (!missing.empty()) {
        const auto list = joined(missing, " ");
        return failed(kCheckBwrap, named + " lacks " + list,
                      "install bubblewrap 0.8.0 or later (Debian 12 ships 0.8.0)");
    }
    return pass(kCheckBwrap, named + " supports every option used");
}

CheckResult judge_protected_hardlinks(const std::optional<std::string>& value)
{
    if (!value) {
        return failed(kCheckHardlinks, "fs.protected_hardlinks could not be read (unprivileged?)",
                      "run preflight as root, or verify `sysctl fs.protected_hardlinks` is 1 as an operator");
    }
    if (trimmed(value) != "1") {
        return failed(kCheckHardlinks, "fs.protected_hardlinks=" + trimmed(value),
                      "sysctl -w fs.protected_hardlinks=1 and persist it in /etc/sysctl.d/ (sessions could "
                      "otherwise hard-link files they do not own into their writable tree)");
    }
    return pass(kCheckHardlinks, "fs.protected_hardlinks=1");
}

CheckResult judge_systemd_version(const std::string& version)
{
    int major = 0;
    const auto* end = version.data() + version.size();
    const auto [ptr, ec] = std::from_chars(version.data(), end, major);
    if (ec != std::errc() || ptr == version.data()) {
        return failed(kCheckSystemd, "cannot parse systemd version '" + version + "'",
                      "run on a host whose PID 1 is systemd");
    }
    if (major < kMinimumSystemd) {
        return failed(kCheckSystemd, "systemd " + version + " is older than " + std::to_string(kMinimumSystemd),
                      "ProtectProc= and ProcSubset= need systemd 247 or later: upgrade the distribution");
    }
    // Which way launchers get their spec follows from the version too: an
    // operator reading preflight on a mixed fleet sees which path each
    // host takes.
    return pass(kCheckSystemd, "systemd " + version + "; launch spec " + describe(spec_delivery_for(version)));
}

CheckResult judge_landlock(long abi, int error)
{
    const auto required = std::to_string(kLandlockAbiRequired);
    const std::string hint = "boot Linux 6.12 or later (Debian 12: the bookworm-backports kernel) with landlock in "
                             "the kernel's lsm= list; sessions are refused rather than run without it";
    if (abi < 0) {
        return failed(kCheckLandlock,
                      std::string("Landlock is not available (") + std::strerror(error) + "); the launcher needs ABI " +
                          required,
                      hint);
    }
    if (abi < kLandlockAbiRequired) {
        return failed(kCheckLandlock,
                      "Landlock ABI " + std::to_string(abi) + " found; the launcher needs ABI " + required +
                          " (scoped abstract unix sockets and signals)",
                      hint);
    }
    return pass(kCheckLandlock, "Landlock ABI " + std::to_string(abi) + " (the launcher needs " + required + ")");
}

CheckResult judge_cgroups(const CgroupFacts& facts)
{
    const std::string supported = "run on a host whose cgroups are v2 only (Debian 13, or Debian 12 with the "
                                  "bookworm-backports kernel; systemd.unified_cgroup_hierarchy=1)";
    if (facts.fs_type == "tmpfs") {
        return {kCheckCgroups, true,
                "cgroup v1 controllers (a hybrid or legacy host): systemd applies the session limits through them, "
                "but no supported host looks like this and the releases are tested on cgroup v2 only",
                supported, true};
    }
    if (facts.fs_type != "cgroup2fs") {
        return failed(kCheckCgroups,
                      "/sys/fs/cgroup is " + (facts.fs_type.empty() ? std::string("unreadable") : facts.fs_type) +
                          ", not a cgroup hierarchy",
                      supported);
    }
    std::istringstream listed(facts.controllers);
    const std::set<std::string, std::less<>> available{std::istream_iterator<std::string>(listed),
                                                       std::istream_iterator<std::string>()};
    std::string missing;
    for (const auto controller : kSessionControllers) {
        if (!available.contains(controller)) {
            missing += (missing.empty() ? "" : " ") + std::string(controller);
        }
    }
    if (!missing.empty()) {
        return failed(kCheckCgroups, "cgroup v2 without the " + missing + " controller(s) the session limits need",
                      "enable them in the kernel and on the root cgroup (cgroup.subtree_control); systemd "
                      "cannot apply MemoryMax=, TasksMax= or CPUQuota= without them");
    }
    return pass(kCheckCgroups, "cgroup v2 only, with the memory, pids and cpu controllers");
}

CheckResult judge_canary(const CanaryOutcome& outcome)
{
    if (!outcome.started) {
        return failed(kCheckCanary, "systemd refused the canary unit: " + outcome.start_error,
                      "systemd must accept the session hardening (systemd 247+); see `journalctl -b`");
    }
    if (outcome.result == "success" && outcome.exit_status == 0) {
        return pass(kCheckCanary, "a session unit ran the launcher, which applied Landlock and the seccomp program "
                                  "and ran /usr/bin/true in bwrap");
    }
    auto output = outcome.output;
    while (!output.empty() && output.back() == '\n') {
        output.pop_back();
    }
    std::string hint = "see the launcher's or bwrap's message above and the userns check; "
                       "`journalctl -u native-runtime-preflight`";
    if (output.find("native-runtime-launch:") != std::string::npos && output.find("Landlock") != std::string::npos) {
        hint = "the launcher could not apply Landlock: it needs ABI " + std::to_string(kLandlockAbiRequired) +
               " (Linux 6.12 or later, landlock in the lsm= list); a seccomp filter around the launcher that "
               "denies landlock_* calls has the same effect";
    } else if (output.find("native-runtime-launch:") != std::string::npos) {
        hint = "the launcher refused to start the sandbox (message above); it never falls back to weaker isolation";
    } else if (output.find("overflowuid") != std::string::npos) {
        hint = "bwrap cannot read /proc/sys/kernel/overflowuid: a drop-in sets ProcSubset=pid for sessions?";
    } else if (output.find("setting up uid map") != std::string::npos ||
               output.find("No permissions to creating new namespace") != std::string::npos ||
               output.find("RTM_NEWADDR") != std::string::npos) {
        hint = "bwrap could not set up its namespaces: see the userns check (AppArmor on Ubuntu)";
    }
    return failed(kCheckCanary,
                  "canary ended with result " + outcome.result + ", status " + std::to_string(outcome.exit_status) +
                      (output.empty() ? "" : ": " + output),
                  hint);
}

std::string canary_cache_record(const CanaryInputs& inputs)
{
    const auto escaped = [](const std::string& value) {
        std::string out;
        for (const char c : value) {
            if (c == '\\') {
                out += "\\\\";
            } else if (c == '\n') {
                out += "\\n";
            } else {
                out += c;
            }
        }
        return out;
    };
    std::string record = "native-runtime preflight canary passed, record 1\n";
    const auto line = [&](const std::string& name, const std::string& value) {
        record += name + "=" + escaped(value) + "\n";
    };
    line("boot_id", inputs.boot_id);
    line("kernel", inputs.kernel);
    line("systemd", inputs.systemd_version);
    line("config", inputs.config_digest);
    for (const auto& [path, identity] : inputs.binaries) {
        line("binary " + escaped(path), identity);
    }
    for (const auto& [name, value] : inputs.sysctls) {
        line("sysctl " + escaped(name), value);
    }
    return record;
}

bool writable_by(const PathFacts& facts, const Principal& who)
{
    if (facts.uid == who.uid) {
        // The owner can always chmod it writable again.
        return true;
    }
    if ((facts.mode & S_IWGRP) != 0 && (facts.gid == who.uid || in_groups(who, facts.gid))) {
        return true;
    }
    return (facts.mode & S_IWOTH) != 0;
}

CheckResult judge_immutable(const std::vector<std::vector<PathFacts>>& chains, const std::vector<Principal>& principals)
{
    std::vector<std::string> problems;
    for (const auto& chain : chains) {
        if (chain.empty()) {
            continue;
        }
        for (std::size_t i = 0; i < chain.size(); ++i) {
            const auto& facts = chain[i];
            const auto role = i == 0 ? std::string() : " (ancestor of " + chain.front().path + ")";
            // A missing path is no exposure by itself (a grant of an
            // uninstalled adapter); whether someone could create it is
            // decided by its ancestors, which come next.
            if (!facts.exists) {
                continue;
            }
            if (facts.uid != 0) {
                problems.push_back(facts.path + role + " is owned by uid " + std::to_string(facts.uid) + ", not root");
                break;
            }
            // Sticky shared directories such as /tmp as ancestors: a user
            // can add names there but cannot replace root's entry.
            const bool sticky_ancestor = i > 0 && (facts.mode & S_ISVTX) != 0;
            for (const auto& who : principals) {
                if (!sticky_ancestor && writable_by(facts, who)) {
                    problems.push_back(facts.path + role + " is writable by " + who.name + " (mode " +
                                       octal(facts.mode & 07777U) + ")");
                    break;
                }
            }
        }
    }
    if (problems.empty()) {
        return pass(kCheckImmutable, "launcher, helper, bwrap and read-only grants are root-owned and not writable "
                                     "by the worker or session users");
    }
    const auto detail = joined(problems, "; ");
    return failed(kCheckImmutable, detail,
                  "release code must be immutable for sessions: chown root: and chmod go-w the named paths");
}

CheckResult judge_snapshot_dir(const std::string& configured, const PathFacts& facts, const std::optional<gid_t>& group,
                               const std::string& group_name)
{
    if (configured.empty()) {
        return pass(kCheckSnapshotDir, "no snapshot_dir configured");
    }
    const auto fix = "native-runtimectl provision-snapshot-dir --group " + group_name + " " + configured;
    if (!facts.exists || !S_ISDIR(facts.mode)) {
        return failed(kCheckSnapshotDir, configured + " does not exist or is not a directory", fix);
    }
    if ((facts.mode & 07777U) != 02770U) {
        return failed(kCheckSnapshotDir, configured + " has mode " + octal(facts.mode & 07777U) + ", not 2770",
                      "chmod 2770 " + configured);
    }
    // The helper has no CAP_DAC_OVERRIDE and is not in the group: only the
    // owner bits let it write its snapshots and receipts there.
    if (facts.uid != 0) {
        return failed(kCheckSnapshotDir,
                      configured + " is owned by uid " + std::to_string(facts.uid) +
                          ", not root: the helper cannot write there",
                      "chown root " + configured);
    }
    if (!group) {
        return failed(kCheckSnapshotDir, "group " + group_name + " does not exist", "groupadd --system " + group_name);
    }
    if (facts.gid != *group) {
        return failed(kCheckSnapshotDir, configured + " has gid " + std::to_string(facts.gid) + ", not " + group_name,
                      "chgrp " + group_name + " " + configured);
    }
    return pass(kCheckSnapshotDir, configured + " is root's, 2770 with group " + group_name);
}

CheckResult judge_dropins(const std::vector<std::string>& units, const std::vector<std::string>& problems,
                          const std::vector<std::string>& without_helper)
{
    if (units.empty()) {
        return failed(kCheckDropins, "no application units configured",
                      "list the application's units in app_units (config) or pass --unit");
    }
    if (!problems.empty()) {
        const auto detail = joined(problems, "; ");
        return failed(kCheckDropins, detail, "native-runtimectl install-dropins, then fix the files named");
    }
    const auto list = joined(units, ", ");
    if (!without_helper.empty()) {
        const auto lagging = joined(without_helper, ", ");
        const std::string verb_ending = without_helper.size() == 1 ? "s" : "";
        return {kCheckDropins, true,
                "late drop-in in effect on " + list + ", but " + lagging + " neither want" + verb_ending +
                    " nor start" + verb_ending + " after " + std::string(kHelperUnit) +
                    ": the helper starts on the first call instead, and that call waits for its checks",
                "a drop-in written by an earlier native-runtime lacks those lines: native-runtimectl "
                "install-dropins rewrites it",
                true};
    }
    return pass(kCheckDropins, "late drop-in in effect on " + list);
}

CheckResult judge_helper_dropin(const std::vector<std::string>& problems)
{
    if (!problems.empty()) {
        const auto detail = joined(problems, "; ");
        return failed(
            kCheckHelperDropin, detail,
            "native-runtimectl install-dropins writes it; then `systemctl restart native-runtimed` if it runs");
    }
    return pass(kCheckHelperDropin, "native-runtimed.service may write the data and snapshot directories");
}

std::string_view verdict_word(const CheckResult& result)
{
    if (!result.passed) {
        return "FAIL";
    }
    return result.warning ? "WARN" : "PASS";
}

std::optional<CheckResult> first_failure(const std::vector<CheckResult>& results)
{
    const auto it = std::find_if(results.begin(), results.end(), [](const CheckResult& r) { return !r.passed; });
    if (it == results.end()) {
        return std::nullopt;
    }
    return *it;
}

} // namespace nr::core
