#include "daemon/event_loop.h"

#include "daemon/manager_service.h"
#include "sys/bus_compat.h"

#include <algorithm>
#include <csignal>
#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace nr::daemon {

namespace {

constexpr int kHousekeepingIntervalMs = 1000;

int signal_fd_for_termination()
{
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    if (sigprocmask(SIG_BLOCK, &mask, nullptr) != 0) {
        throw std::system_error(errno, std::generic_category(), "sigprocmask");
    }
    const int fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (fd < 0) {
        throw std::system_error(errno, std::generic_category(), "signalfd");
    }
    return fd;
}

int poll_timeout_ms(int bus_timeout)
{
    return bus_timeout < 0 ? kHousekeepingIntervalMs : std::min(bus_timeout, kHousekeepingIntervalMs);
}

} // namespace

void run_until_idle(sdbus::IConnection& connection, ManagerService& service)
{
    const int sigfd = signal_fd_for_termination();
    for (;;) {
        while (sys::process_pending(connection)) {
        }
        service.housekeeping();
        if (service.idle(std::chrono::steady_clock::now())) {
            break;
        }
        auto wait = sys::bus_poll(connection);
        wait.fds.push_back(pollfd{sigfd, POLLIN, 0});
        const int rc = poll(wait.fds.data(), wait.fds.size(), poll_timeout_ms(wait.timeout_ms));
        if (rc < 0 && errno != EINTR) {
            throw std::system_error(errno, std::generic_category(), "poll");
        }
        if ((wait.fds.back().revents & POLLIN) != 0) {
            break;
        }
    }
    close(sigfd);
}

} // namespace nr::daemon
