// SPDX-License-Identifier: Apache-2.0
#include "launcher/launch_steps.h"

#include "core/base/error.h"
#include "sys/base/exec_setup.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace nr::launcher {

using core::ErrorKind;
using core::fail;

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
    auto c_argv = sys::exec_vector(argv);
    auto c_env = sys::exec_vector(env);
    execve(c_argv.front(), c_argv.data(), c_env.data());
    fail(ErrorKind::LaunchFailed, "exec " + argv.front() + ": " + std::strerror(errno));
}

} // namespace nr::launcher
