// SPDX-License-Identifier: Apache-2.0
#include "escapes.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>

extern char** environ;

namespace nr::probe {

namespace {

std::string result(bool ok)
{
    return ok ? "ok" : std::string(strerrorname_np(errno));
}

bool can_read(const std::string& path)
{
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    char byte = 0;
    const bool ok = read(fd, &byte, 1) >= 0;
    close(fd);
    return ok;
}

std::string child_reads(const std::string& path)
{
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    const char* argv[] = {"cat", path.c_str(), nullptr};
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, "cat", &actions, nullptr, const_cast<char**>(argv), environ); // NOLINT
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        return "spawn-failed";
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ok" : "failed";
}

} // namespace

int verb_escape(const std::string& path)
{
    struct stat st {};
    std::cout << "exists=" << result(lstat(path.c_str(), &st) == 0) << '\n';
    std::cout << "read_direct=" << result(can_read(path)) << '\n';

    const std::string link_name = "./nr-escape-symlink";
    unlink(link_name.c_str());
    const bool linked = symlink(path.c_str(), link_name.c_str()) == 0;
    std::cout << "via_symlink=" << (linked ? result(can_read(link_name)) : "symlink-" + result(false)) << '\n';
    unlink(link_name.c_str());

    const std::string hard_name = "./nr-escape-hardlink";
    unlink(hard_name.c_str());
    const bool hard = link(path.c_str(), hard_name.c_str()) == 0;
    std::cout << "via_hardlink=" << result(hard) << '\n';
    unlink(hard_name.c_str());

    std::cout << "via_child=" << child_reads(path) << '\n';

    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    const bool wrote = fd >= 0 && write(fd, "overwritten", 11) == 11;
    std::cout << "overwrite=" << result(wrote) << '\n';
    if (fd >= 0) {
        close(fd);
    }
    return 0;
}

int verb_ids()
{
    std::cout << "uid=" << getuid() << "\neuid=" << geteuid() << '\n';
    return 0;
}

} // namespace nr::probe
