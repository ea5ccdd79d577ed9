// SPDX-License-Identifier: Apache-2.0
#include "launcher/launch_steps.h"

#include "core/base/error.h"

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

void close_inherited_fds(int keep)
{
    constexpr unsigned kFirst = 3;
    const auto close_from_to = [](unsigned first, unsigned last) {
        if (first <= last && syscall(SYS_close_range, first, last, 0U) != 0) {
            fail(ErrorKind::LaunchFailed, std::string("close_range: ") + std::strerror(errno));
        }
    };
    if (keep < static_cast<int>(kFirst)) {
        close_from_to(kFirst, UINT_MAX);
        return;
    }
    close_from_to(kFirst, static_cast<unsigned>(keep) - 1);
    close_from_to(static_cast<unsigned>(keep) + 1, UINT_MAX);
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
