// SPDX-License-Identifier: Apache-2.0
#include "ctl/child_process.h"

#include "sys/base/exec_setup.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

extern char** environ; // NOLINT(readability-redundant-declaration): POSIX declares it nowhere

namespace nr::ctl {

namespace {

[[noreturn]] void fail_to_start(int error, const std::string& program)
{
    throw std::system_error(error, std::generic_category(), "starting " + program);
}

// posix_spawn's attribute and file-action objects, destroyed on every path.
struct SpawnSetup {
    posix_spawnattr_t attr{};
    posix_spawn_file_actions_t actions{};
    SpawnSetup()
    {
        posix_spawnattr_init(&attr);
        posix_spawn_file_actions_init(&actions);
    }
    SpawnSetup(const SpawnSetup&) = delete;
    SpawnSetup& operator=(const SpawnSetup&) = delete;
    SpawnSetup(SpawnSetup&&) = delete;
    SpawnSetup& operator=(SpawnSetup&&) = delete;
    ~SpawnSetup()
    {
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attr);
    }
};

} // namespace

int run_and_wait(const std::vector<std::string>& argv, bool quiet, const sigset_t* mask)
{
    SpawnSetup setup;
    if (quiet) {
        posix_spawn_file_actions_addopen(&setup.actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_adddup2(&setup.actions, STDOUT_FILENO, STDERR_FILENO);
    }
    if (mask != nullptr) {
        posix_spawnattr_setsigmask(&setup.attr, mask);
        posix_spawnattr_setflags(&setup.attr, POSIX_SPAWN_SETSIGMASK);
    }
    const auto args = sys::exec_vector(argv);
    pid_t pid = -1;
    if (const int error = posix_spawn(&pid, args[0], &setup.actions, &setup.attr, args.data(), environ); error != 0) {
        fail_to_start(error, argv.front());
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            throw std::system_error(errno, std::generic_category(), "waiting for " + argv.front());
        }
    }
    return status;
}

void exec_program(const std::vector<std::string>& argv)
{
    const auto args = sys::exec_vector(argv);
    ::execv(args[0], args.data());
    fail_to_start(errno, argv.front());
}

} // namespace nr::ctl
