// SPDX-License-Identifier: Apache-2.0
#include "sys/base/orphan_reaping.h"

#include "core/base/error.h"
#include "sys/base/unique_fd.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace nr::sys {

namespace {

// A child killed with SIGKILL cannot fork again, so each round reaps at least
// one for good; the bound only guards against a kernel that lists a child
// waitpid cannot reap.
constexpr int kMaxRounds = 64;

bool has_children()
{
    siginfo_t info{};
    return !(waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0 && errno == ECHILD);
}

// At most this many are killed per round; more wait for the next round.
constexpr std::size_t kPerRound = 64;

struct Pids {
    std::array<pid_t, kPerRound> items{};
    std::size_t count = 0;
};

// Parses a children list ("12 34 ") into `found`, as far as it has room.
void append_pids(const char* path, Pids& found)
{
    const UniqueFd fd(open(path, O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) {
        return;
    }
    std::array<char, 4096> text{};
    ssize_t n = 0;
    while ((n = read(fd.get(), text.data(), text.size() - 1)) < 0 && errno == EINTR) {
    }
    text.at(static_cast<std::size_t>(std::max<ssize_t>(n, 0))) = '\0';
    const char* at = text.data();
    char* end = nullptr;
    for (long pid = std::strtol(at, &end, 10); end != at && found.count < found.items.size();
         pid = std::strtol(at, &end, 10)) {
        found.items.at(found.count++) = static_cast<pid_t>(pid);
        at = end;
    }
}

// An orphan is reparented to one of the subreaper's threads, so every
// thread's list is read. Fixed buffers (this runs in failure paths; only
// opendir allocates) and no iostreams (the supervisor maps none).
Pids children()
{
    Pids found;
    DIR* tasks = opendir("/proc/self/task");
    if (tasks == nullptr) {
        return found;
    }
    while (const dirent* task = readdir(tasks)) {
        if (task->d_name[0] == '.') {
            continue;
        }
        std::array<char, sizeof("/proc/self/task//children") + sizeof(task->d_name)> path{};
        (void)std::snprintf(path.data(), path.size(), "/proc/self/task/%s/children", task->d_name);
        append_pids(path.data(), found);
    }
    closedir(tasks);
    return found;
}

} // namespace

void adopt_orphaned_descendants()
{
    if (prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL) != 0) {
        core::fail(core::ErrorKind::LaunchFailed,
                   std::string("prctl(PR_SET_CHILD_SUBREAPER): ") + std::strerror(errno));
    }
}

void kill_adopted_orphans() noexcept
{
    for (int round = 0; round < kMaxRounds && has_children(); ++round) {
        const auto pids = children();
        if (pids.count == 0) {
            return; // /proc unreadable: nothing this process can name
        }
        for (std::size_t i = 0; i < pids.count; ++i) {
            kill(pids.items.at(i), SIGKILL);
        }
        for (std::size_t i = 0; i < pids.count; ++i) {
            while (waitpid(pids.items.at(i), nullptr, 0) < 0 && errno == EINTR) {
            }
        }
    }
}

} // namespace nr::sys
