#include "daemon/event_loop.h"

#include "daemon/manager_service.h"

#include <algorithm>
#include <csignal>
#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <array>
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

int poll_timeout_ms(const sdbus::IConnection::PollData& poll_data)
{
    const int bus_timeout = poll_data.getPollTimeout();
    return bus_timeout < 0 ? kHousekeepingIntervalMs : std::min(bus_timeout, kHousekeepingIntervalMs);
}

} // namespace

void run_until_idle(sdbus::IConnection& connection, ManagerService& service)
{
    const int sigfd = signal_fd_for_termination();
    for (;;) {
        while (connection.processPendingRequest()) {
        }
        service.housekeeping();
        if (service.idle(std::chrono::steady_clock::now())) {
            break;
        }
        const auto poll_data = connection.getEventLoopPollData();
        std::array<pollfd, 2> fds{pollfd{poll_data.fd, poll_data.events, 0}, pollfd{sigfd, POLLIN, 0}};
        const int rc = poll(fds.data(), fds.size(), poll_timeout_ms(poll_data));
        if (rc < 0 && errno != EINTR) {
            throw std::system_error(errno, std::generic_category(), "poll");
        }
        if ((fds[1].revents & POLLIN) != 0) {
            break;
        }
    }
    close(sigfd);
}

} // namespace nr::daemon
