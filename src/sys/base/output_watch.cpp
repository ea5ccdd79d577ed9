// SPDX-License-Identifier: Apache-2.0
#include "sys/base/output_watch.h"

#include "core/base/error.h"
#include "sys/base/unique_fd.h"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <string>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace nr::sys {

namespace {

int reap(pid_t child)
{
    int status = 0;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) {
            return -1;
        }
    }
    return status;
}

[[noreturn]] void kill_and_fail(pid_t child, const std::string& what)
{
    const auto reason = what + ": " + std::strerror(errno);
    kill(child, SIGKILL);
    (void)reap(child);
    core::fail(core::ErrorKind::LaunchFailed, reason);
}

} // namespace

ChildEnd wait_child_or_reader_gone(pid_t child, int watched_fd, int served_fd, const std::function<void()>& serve)
{
    const UniqueFd pidfd(static_cast<int>(syscall(SYS_pidfd_open, child, 0U)));
    if (!pidfd.valid()) {
        kill_and_fail(child, "pidfd_open");
    }
    // events 0 for the watched descriptor: only POLLERR/POLLHUP/POLLNVAL can
    // be reported for it. A negative fd is skipped by poll.
    std::array<pollfd, 3> fds{pollfd{pidfd.get(), POLLIN, 0}, pollfd{watched_fd, 0, 0},
                              pollfd{serve ? served_fd : -1, POLLIN, 0}};
    ChildEnd end;
    while (true) {
        if (poll(fds.data(), fds.size(), -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            kill_and_fail(child, "poll");
        }
        if (fds[0].revents != 0) {
            break; // the child exited
        }
        if ((fds[2].revents & POLLIN) != 0) {
            serve();
        } else if ((fds[2].revents & (POLLHUP | POLLERR | POLLNVAL)) != 0) {
            fds[2].fd = -1;
        }
        if ((fds[1].revents & POLLNVAL) != 0) {
            fds[1].fd = -1; // nothing open to watch
            continue;
        }
        if ((fds[1].revents & (POLLERR | POLLHUP)) != 0) {
            end.reader_gone = true;
            kill(child, SIGKILL);
            break;
        }
    }
    end.wait_status = reap(child);
    if (end.wait_status < 0) {
        core::fail(core::ErrorKind::LaunchFailed, std::string("waitpid: ") + std::strerror(errno));
    }
    return end;
}

} // namespace nr::sys
