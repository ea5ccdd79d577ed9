// SPDX-License-Identifier: Apache-2.0
#include "sys/bus/bus_loop.h"

#include "sys/bus/bus_compat.h"

#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <system_error>

namespace nr::sys {

StopSignals::StopSignals(std::initializer_list<int> signals)
{
    sigset_t mask;
    sigemptyset(&mask);
    for (const int sig : signals) {
        sigaddset(&mask, sig);
    }
    if (sigprocmask(SIG_BLOCK, &mask, nullptr) != 0) {
        throw std::system_error(errno, std::generic_category(), "sigprocmask");
    }
    fd_.reset(signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK));
    if (!fd_.valid()) {
        throw std::system_error(errno, std::generic_category(), "signalfd");
    }
}

void dispatch_pending(sdbus::IConnection& connection)
{
    while (process_pending(connection)) {
    }
}

bool wait_for_bus_or_signal(sdbus::IConnection& connection, const StopSignals& signals, int max_wait_ms,
                            const std::vector<int>& also_wake_on)
{
    auto wait = bus_poll(connection);
    for (const int fd : also_wake_on) {
        wait.fds.push_back(pollfd{fd, POLLIN, 0});
    }
    wait.fds.push_back(pollfd{signals.fd(), POLLIN, 0});
    const int timeout = wait.timeout_ms < 0 ? max_wait_ms : std::min(wait.timeout_ms, max_wait_ms);
    if (poll(wait.fds.data(), wait.fds.size(), timeout) < 0 && errno != EINTR) {
        throw std::system_error(errno, std::generic_category(), "poll");
    }
    if ((wait.fds.back().revents & POLLIN) == 0) {
        return false;
    }
    // Only the arrival matters; reading it leaves the signalfd quiet.
    signalfd_siginfo info{};
    while (read(signals.fd(), &info, sizeof info) > 0) {
    }
    return true;
}

} // namespace nr::sys
