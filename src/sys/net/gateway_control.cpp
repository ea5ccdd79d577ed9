// SPDX-License-Identifier: Apache-2.0
#include "sys/net/gateway_control.h"

#include "core/base/error.h"
#include "sys/base/fd_passing.h"
#include "sys/base/unique_fd.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <vector>

namespace nr::sys {

namespace {

using core::ErrorKind;
using core::fail;

constexpr std::size_t kMaxAnswer = 4096;

[[noreturn]] void step_failed(const std::string& step)
{
    fail(ErrorKind::LaunchFailed, "egress gateway: " + step + ": " + std::strerror(errno));
}

UniqueFd connect_control(const std::string& socket_path)
{
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (socket_path.size() >= sizeof(address.sun_path)) {
        fail(ErrorKind::LaunchFailed, "egress gateway: control socket path too long: " + socket_path);
    }
    std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
    UniqueFd sock(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
    if (!sock.valid()) {
        step_failed("socket");
    }
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): sockaddr ABI
    if (connect(sock.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
        if (errno == ENOENT || errno == ECONNREFUSED) {
            fail(ErrorKind::LaunchFailed, "the egress gateway is not installed or not started (no listener on " +
                                              socket_path + ": " + std::strerror(errno) +
                                              "); see native-runtime-gateway.socket");
        }
        step_failed("connect " + socket_path);
    }
    return sock;
}

} // namespace

std::string gateway_exchange(const std::string& socket_path, const std::string& message, int fd,
                             std::chrono::milliseconds timeout)
{
    const auto sock = connect_control(socket_path);
    if (!send_with_descriptor(sock.get(), message, fd, 0)) {
        step_failed("send");
    }
    pollfd ready{sock.get(), POLLIN, 0};
    const int polled = poll(&ready, 1, static_cast<int>(timeout.count()));
    if (polled == 0) {
        errno = ETIMEDOUT;
    }
    if (polled != 1) {
        step_failed("waiting for the answer");
    }
    std::vector<char> answer(kMaxAnswer);
    const auto received = recv(sock.get(), answer.data(), answer.size(), 0);
    if (received < 0) {
        step_failed("receive");
    }
    return {answer.data(), static_cast<std::size_t>(received)};
}

} // namespace nr::sys
