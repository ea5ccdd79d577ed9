#include "launcher/launch_steps.h"

#include "core/error.h"
#include "sys/helper_proxy.h"

#include <sdbus-c++/sdbus-c++.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace nr::launcher {

namespace {

using core::ErrorKind;
using core::fail;

std::vector<char*> c_strings(const std::vector<std::string>& items)
{
    std::vector<char*> out;
    out.reserve(items.size() + 1);
    for (const auto& item : items) {
        out.push_back(const_cast<char*>(item.c_str())); // NOLINT(cppcoreguidelines-pro-type-const-cast): execve ABI
    }
    out.push_back(nullptr);
    return out;
}

} // namespace

void close_inherited_fds()
{
    if (syscall(SYS_close_range, 3U, UINT_MAX, 0U) != 0) {
        fail(ErrorKind::LaunchFailed, std::string("close_range: ") + std::strerror(errno));
    }
}

core::LaunchSpec claim_launch_spec(const std::string& token)
{
    try {
        auto connection = sdbus::createSystemBusConnection();
        sys::LauncherProxy proxy(*connection);
        const auto [argv, env, rules, kill_foreign, base, dirs, admission_queue, checked] = proxy.Claim(token);
        core::LaunchSpec spec;
        spec.bwrap_argv = argv;
        spec.environment = env;
        for (const auto& rule : rules) {
            const auto& name = rule.get<0>();
            const auto& conditions = rule.get<2>();
            core::SyscallRule decoded{name, rule.get<1>(), std::nullopt};
            // The helper sends at most one condition per rule; anything else
            // is not a policy this launcher can apply exactly, so no filter.
            if (conditions.size() > 1) {
                fail(ErrorKind::LaunchFailed, "the seccomp rule for " + name + " has more than one condition");
            }
            if (!conditions.empty()) {
                const auto& match = conditions.front();
                decoded.when = core::ArgumentMatch{match.get<0>(), match.get<1>(), match.get<2>()};
            }
            spec.seccomp.denied.push_back(decoded);
        }
        spec.seccomp.kill_foreign_abis = kill_foreign;
        spec.dirs = {base, dirs};
        spec.admission.queue_dir = admission_queue;
        for (const auto& dir : checked) {
            spec.checked_dirs.push_back({dir.get<0>(), dir.get<1>(), dir.get<2>()});
        }
        return spec;
    } catch (const sdbus::Error& e) {
        fail(ErrorKind::LaunchFailed, "claiming the launch spec failed: " + e.getName() + ": " + e.getMessage());
    }
}

void check_trusted_binary(const std::string& path)
{
    struct stat st {};
    if (path.empty() || path.front() != '/' || lstat(path.c_str(), &st) != 0) {
        fail(ErrorKind::LaunchFailed, "bubblewrap is missing at " + path);
    }
    if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        fail(ErrorKind::LaunchFailed, path + " is not a root-owned regular file writable only by root");
    }
}

void exec_sandbox(const std::vector<std::string>& argv, const std::vector<std::string>& env)
{
    auto c_argv = c_strings(argv);
    auto c_env = c_strings(env);
    execve(c_argv.front(), c_argv.data(), c_env.data());
    fail(ErrorKind::LaunchFailed, "exec " + argv.front() + ": " + std::strerror(errno));
}

} // namespace nr::launcher
