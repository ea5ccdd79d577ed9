// SPDX-License-Identifier: Apache-2.0
#include "sys/preflight/preflight.h"

#include "core/base/error.h"
#include "core/base/path_policy.h"
#include "core/base/unit_name.h"
#include "sys/base/exec_setup.h"
#include "sys/base/unique_fd.h"
#include "sys/fs/dropin_files.h"
#include "sys/host/host_facts.h"
#include "sys/host/identity.h"
#include "sys/landlock/landlock_scope.h"
#include "sys/systemd/dropin_check.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/magic.h>
#include <pwd.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace nr::sys {

namespace {

std::optional<std::string> read_optional(const std::string& path)
{
    try {
        return read_text_file(path);
    } catch (const std::system_error&) {
        return std::nullopt;
    }
}

// argv's stdout+stderr when it ran and exited 0; nullopt otherwise.
std::optional<std::string> run_capture(const std::vector<std::string>& argv)
{
    std::array<int, 2> pipe_fds{};
    if (::pipe2(pipe_fds.data(), O_CLOEXEC) != 0) {
        return std::nullopt;
    }
    const auto args = exec_vector(argv);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(pipe_fds[1], STDOUT_FILENO);
        ::dup2(pipe_fds[1], STDERR_FILENO);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    ::close(pipe_fds[1]);
    const UniqueFd out(pipe_fds[0]);
    std::string text;
    std::array<char, 4096> buf{};
    for (;;) {
        const auto got = ::read(out.get(), buf.data(), buf.size());
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            break;
        }
        text.append(buf.data(), static_cast<std::size_t>(got));
    }
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return std::nullopt;
    }
    return text;
}

// Writes `text` to `path`; the child's errno on failure, 0 otherwise.
int write_proc_file(const char* path, const char* text, std::size_t size)
{
    const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        return errno;
    }
    const auto written = ::write(fd, text, size);
    const int saved = written == static_cast<ssize_t>(size) ? 0 : (written < 0 ? errno : EIO);
    ::close(fd);
    return saved;
}

// What bwrap does first: a user and mount namespace, a uid map for itself,
// and a mount. Run by a child that became `user`; returns 0 or an errno.
int try_unprivileged_namespaces(const core::RunAsUser& user)
{
    const auto uid_map = "0 " + std::to_string(user.uid) + " 1\n";
    const pid_t pid = ::fork();
    if (pid < 0) {
        return errno;
    }
    if (pid == 0) {
        if (::setgroups(0, nullptr) != 0 || ::setgid(user.gid) != 0 || ::setuid(user.uid) != 0) {
            ::_exit(EPERM);
        }
        // setuid() from root clears the dumpable flag, which makes
        // /proc/self/uid_map root's and unwritable for this user; bwrap
        // (never root to begin with) does not have that problem.
        ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
        if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
            ::_exit(errno);
        }
        if (const int e = write_proc_file("/proc/self/uid_map", uid_map.c_str(), uid_map.size()); e != 0) {
            ::_exit(e);
        }
        // Without capabilities in the new namespace (AppArmor's unprivileged
        // userns restriction) this is refused.
        if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
            ::_exit(errno);
        }
        ::_exit(0);
    }
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
        return ECHILD;
    }
    return WEXITSTATUS(status);
}

core::PathFacts path_facts(const std::string& path)
{
    core::PathFacts facts;
    facts.path = path;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        return facts;
    }
    facts.exists = true;
    facts.uid = st.st_uid;
    facts.gid = st.st_gid;
    // A symlink's own mode bits are meaningless (always 0777); who may
    // replace it is decided by its directory, which is in the chain.
    facts.mode = S_ISLNK(st.st_mode) ? static_cast<mode_t>(st.st_mode & ~0777U) : st.st_mode;
    return facts;
}

std::vector<core::PathFacts> chain_of(const std::string& path)
{
    std::vector<core::PathFacts> chain{path_facts(path)};
    auto current = std::filesystem::path(path);
    while (current.has_parent_path() && current != current.root_path()) {
        current = current.parent_path();
        chain.push_back(path_facts(current.string()));
    }
    return chain;
}

std::optional<core::Principal> principal(const std::string& name)
{
    const auto user = lookup_user(name);
    if (!user) {
        return std::nullopt;
    }
    int count = 64;
    std::vector<gid_t> gids(static_cast<std::size_t>(count));
    if (::getgrouplist(name.c_str(), user->gid, gids.data(), &count) < 0) {
        gids.resize(static_cast<std::size_t>(count));
        ::getgrouplist(name.c_str(), user->gid, gids.data(), &count);
    }
    gids.resize(static_cast<std::size_t>(count));
    return core::Principal{name, user->uid, gids};
}

void add_unique(std::vector<std::string>& list, const std::string& item)
{
    if (std::find(list.begin(), list.end(), item) == list.end()) {
        list.push_back(item);
    }
}

} // namespace

core::CheckResult check_userns(const core::RunAsUser& user)
{
    core::UsernsFacts facts;
    facts.max_user_namespaces = read_optional("/proc/sys/user/max_user_namespaces");
    facts.unprivileged_userns_clone = read_optional("/proc/sys/kernel/unprivileged_userns_clone");
    facts.apparmor_restrict = read_optional("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
    facts.bwrap_apparmor_profile = ::access("/etc/apparmor.d/bwrap-userns-restrict", F_OK) == 0;
    facts.unshare_errno = try_unprivileged_namespaces(user);
    return core::judge_userns(facts);
}

core::CheckResult check_bwrap(const core::Config& config)
{
    struct stat st {};
    const bool ok = ::stat(config.bwrap_path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0;
    auto version = ok ? run_capture({config.bwrap_path, "--version"}) : std::nullopt;
    const auto help = ok ? run_capture({config.bwrap_path, "--help"}) : std::nullopt;
    core::SandboxLayout layout;
    layout.read_only = config.read_only_paths;
    layout.read_write = {"/"}; // placeholders: only the option names count
    layout.working_dir = "/";
    layout.tmp_size_bytes = config.limits.tmp_size_bytes;
    auto options = core::bwrap_options_used(core::bwrap_argv(config.bwrap_path, layout, {"/bin/true"}));
    layout.nested_userns = true;
    layout.network = core::NetworkMode::Offline;
    for (const auto& option : core::bwrap_options_used(core::bwrap_argv(config.bwrap_path, layout, {"/bin/true"}))) {
        add_unique(options, option);
    }
    while (version && !version->empty() && version->back() == '\n') {
        version->pop_back();
    }
    return core::judge_bwrap(config.bwrap_path, ok, version, help, options);
}

core::CheckResult check_protected_hardlinks()
{
    return core::judge_protected_hardlinks(read_optional("/proc/sys/fs/protected_hardlinks"));
}

core::CheckResult check_systemd_version(SystemdManager& systemd)
{
    try {
        return core::judge_systemd_version(systemd.manager_property("Version").get<std::string>());
    } catch (const core::Error& e) {
        return core::judge_systemd_version(std::string("unreadable: ") + e.what());
    }
}

std::string canary_command(const core::Config& config)
{
    for (const auto* candidate : {"/usr/bin/true", "/bin/true"}) {
        for (const auto& grant : config.read_only_paths) {
            if (core::path_is_within(candidate, grant) && ::access(candidate, X_OK) == 0) {
                return candidate;
            }
        }
    }
    return {};
}

core::CheckResult check_landlock()
{
    const long abi = landlock_abi();
    return core::judge_landlock(abi, abi < 0 ? static_cast<int>(-abi) : 0);
}

core::CheckResult check_cgroups()
{
    core::CgroupFacts facts;
    struct statfs fs {};
    if (::statfs("/sys/fs/cgroup", &fs) == 0) {
        if (fs.f_type == CGROUP2_SUPER_MAGIC) {
            facts.fs_type = "cgroup2fs";
            std::ifstream controllers("/sys/fs/cgroup/cgroup.controllers");
            std::getline(controllers, facts.controllers);
        } else if (fs.f_type == TMPFS_MAGIC) {
            facts.fs_type = "tmpfs";
        } else {
            facts.fs_type = "file system type " + std::to_string(static_cast<unsigned long>(fs.f_type));
        }
    }
    return core::judge_cgroups(facts);
}

core::CheckResult check_immutable(const core::Config& config, const std::vector<std::string>& code_paths,
                                  const std::vector<std::string>& principal_names)
{
    std::vector<std::string> paths = code_paths;
    add_unique(paths, config.bwrap_path);
    for (const auto& grant : config.read_only_paths) {
        add_unique(paths, grant);
    }
    for (const auto& [name, adapter] : config.adapters) {
        add_unique(paths, adapter.executable);
        for (const auto& grant : adapter.read_only_paths) {
            add_unique(paths, grant);
        }
    }
    std::vector<std::vector<core::PathFacts>> chains;
    for (const auto& path : paths) {
        chains.push_back(chain_of(path));
        // A granted symlink is replaced by its target inside the sandbox.
        std::error_code ec;
        const auto target = std::filesystem::canonical(path, ec);
        if (!ec && target.string() != path) {
            chains.push_back(chain_of(target.string()));
        }
    }
    std::vector<core::Principal> principals;
    for (const auto& name : principal_names) {
        if (auto who = principal(name)) {
            principals.push_back(std::move(*who));
        }
    }
    return core::judge_immutable(chains, principals);
}

core::CheckResult check_snapshot_dir(const core::Config& config, const std::string& group_name)
{
    std::optional<gid_t> gid;
    if (const auto* group = ::getgrnam(group_name.c_str())) {
        gid = group->gr_gid;
    }
    return core::judge_snapshot_dir(config.snapshot_dir, path_facts(config.snapshot_dir), gid, group_name);
}

core::CheckResult check_dropins(SystemdManager& systemd, const std::vector<std::string>& units,
                                const core::DropinValues& values)
{
    std::vector<std::string> problems;
    std::vector<std::string> without_helper;
    for (const auto& unit : units) {
        const auto ours = core::dropin_directory("", unit) + "/" + std::string(core::kDropinFileName);
        try {
            const auto conflicts = check_dropin_effective(systemd, unit, core::expected_settings(values), ours);
            for (const auto& conflict : conflicts) {
                problems.push_back(unit + ": " + conflict.message);
            }
            if (conflicts.empty() && !unit_starts_after_the_helper(systemd, unit)) {
                without_helper.push_back(unit);
            }
        } catch (const core::Error& e) {
            problems.push_back(unit + ": " + e.what());
        }
    }
    return core::judge_dropins(units, problems, without_helper);
}

core::CheckResult check_helper_dropin(SystemdManager& systemd, const core::DropinValues& values)
{
    const std::string unit(core::kHelperUnit);
    const auto ours = core::dropin_directory("", unit) + "/" + std::string(core::kDropinFileName);
    std::vector<std::string> problems;
    try {
        for (const auto& conflict :
             check_dropin_effective(systemd, unit, core::helper_expected_settings(values), ours)) {
            problems.push_back(unit + ": " + conflict.message);
        }
    } catch (const core::Error& e) {
        problems.push_back(unit + ": " + e.what());
    }
    return core::judge_helper_dropin(problems);
}

std::vector<std::string> session_principals(const core::Config& config)
{
    std::vector<std::string> names;
    for (const auto& name : config.callers.users) {
        add_unique(names, name);
    }
    for (const auto& name : config.callers.run_as_users) {
        add_unique(names, name);
    }
    return names;
}

} // namespace nr::sys
