// SPDX-License-Identifier: Apache-2.0
#include "hogs.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace nr::probe {

int verb_fill_tmp()
{
    const int fd = open("/tmp/fill", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        std::cout << "fill_tmp=" << strerrorname_np(errno) << '\n';
        return 0;
    }
    const std::vector<char> chunk(1 << 20, 'x');
    long mib = 0;
    int err = 0;
    for (;;) {
        const auto n = write(fd, chunk.data(), chunk.size());
        if (n < 0) {
            err = errno;
            break;
        }
        if (static_cast<std::size_t>(n) < chunk.size()) {
            // A short write means the next one will fail; let it report why.
            continue;
        }
        ++mib;
    }
    close(fd);
    unlink("/tmp/fill");
    std::cout << "fill_tmp=" << strerrorname_np(err) << "\nwritten_mib=" << mib << '\n';
    return 0;
}

int verb_fork_until_refused(const std::string& limit)
{
    const int max = std::stoi(limit);
    std::vector<pid_t> children;
    int err = 0;
    while (static_cast<int>(children.size()) < max) {
        const pid_t pid = fork();
        if (pid < 0) {
            err = errno;
            break;
        }
        if (pid == 0) {
            pause();
            _exit(0);
        }
        children.push_back(pid);
    }
    for (const auto pid : children) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
    }
    std::cout << "forks=" << children.size() << "\nfork_error=" << (err == 0 ? "none" : strerrorname_np(err)) << '\n';
    return 0;
}

int verb_eat_memory(const std::string& mib)
{
    constexpr std::size_t kStepMib = 4;
    const auto target = std::stoul(mib);
    std::vector<std::vector<char>> held;
    for (std::size_t eaten = kStepMib; eaten <= target; eaten += kStepMib) {
        // Touch every page: an untouched allocation costs the cgroup nothing.
        held.emplace_back(kStepMib << 20U, static_cast<char>(eaten));
        std::cout << "eaten_mib=" << eaten << std::endl;
    }
    std::cout << "eat=done" << std::endl;
    return 0;
}

int verb_sleep(const std::string& seconds)
{
    sleep(static_cast<unsigned>(std::stoul(seconds)));
    std::cout << "slept=" << seconds << '\n';
    return 0;
}

} // namespace nr::probe
