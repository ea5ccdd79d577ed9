// SPDX-License-Identifier: Apache-2.0
#include "gateway/control_socket.h"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <netinet/in.h>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <vector>

namespace nr::gateway {

namespace {

constexpr std::size_t kMaxDatagram = 64U << 10U;

[[noreturn]] void throw_errno(const std::string& what)
{
    throw std::runtime_error(what + ": " + std::strerror(errno));
}

} // namespace

sys::UniqueFd bind_control_socket(const std::string& path)
{
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof address.sun_path) {
        throw std::runtime_error("control socket path too long: " + path);
    }
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    sys::UniqueFd fd(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
    if (!fd.valid()) {
        throw_errno("socket");
    }
    (void)unlink(path.c_str());
    // The umask makes the socket 0600 from its creation, not a moment later.
    const auto old_mask = umask(0177);
    const int bound = bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address);
    umask(old_mask);
    if (bound != 0) {
        throw_errno("bind " + path);
    }
    if (listen(fd.get(), 16) != 0) {
        throw_errno("listen " + path);
    }
    return fd;
}

bool peer_is_root(int connection)
{
    ucred cred{};
    socklen_t len = sizeof cred;
    return getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == 0;
}

ControlDatagram receive_datagram(int connection)
{
    ControlDatagram out;
    std::string data(kMaxDatagram, '\0');
    iovec iov{data.data(), data.size()};
    alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int) * 4)> control{};
    msghdr message{};
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    message.msg_control = control.data();
    message.msg_controllen = control.size();
    const auto n = recvmsg(connection, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0) {
        out.again = errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
        out.closed = !out.again;
        return out;
    }
    std::vector<sys::UniqueFd> fds;
    for (auto* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            const auto count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (std::size_t i = 0; i < count; ++i) {
                int fd = -1;
                std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
                fds.emplace_back(fd);
            }
        }
    }
    if (n == 0 && fds.empty()) {
        out.closed = true;
        return out;
    }
    if ((message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0) {
        out.error = "truncated message";
    } else if (fds.size() > 1) {
        out.error = "more than one descriptor";
    } else if (fds.size() == 1) {
        out.descriptor = std::move(fds.front());
    }
    data.resize(static_cast<std::size_t>(n));
    out.message = std::move(data);
    return out;
}

void send_reply(int connection, const std::string& reply)
{
    (void)send(connection, reply.data(), reply.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

std::string listener_problem(int fd)
{
    const auto option = [fd](int name) {
        int value = -1;
        socklen_t len = sizeof value;
        return getsockopt(fd, SOL_SOCKET, name, &value, &len) == 0 ? value : -1;
    };
    if (option(SO_DOMAIN) != AF_INET) {
        return "the listener is not an AF_INET socket";
    }
    if (option(SO_TYPE) != SOCK_STREAM) {
        return "the listener is not a SOCK_STREAM socket";
    }
    if (option(SO_ACCEPTCONN) != 1) {
        return "the socket is not listening";
    }
    // A listener on another address than the session namespace's loopback
    // (0.0.0.0, a host address) would make the gateway a proxy for whoever
    // reaches that address: CONNECT tunnels need no token.
    sockaddr_in address{};
    socklen_t len = sizeof address;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &len) != 0 || len != sizeof address ||
        address.sin_addr.s_addr != htonl(INADDR_LOOPBACK)) {
        return "the listener is not bound to 127.0.0.1";
    }
    return {};
}

} // namespace nr::gateway
