// SPDX-License-Identifier: Apache-2.0
#include "listeners.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

namespace nr::itest {

int bound_ipv4_socket(int type, const char* address, std::uint16_t port, std::string& port_out)
{
    const int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
    const int reuse = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof reuse);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    inet_pton(AF_INET, address, &addr.sin_addr);
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        close(fd);
        throw std::runtime_error(std::string("cannot bind ") + address);
    }
    socklen_t len = sizeof addr;
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port_out = std::to_string(ntohs(addr.sin_port));
    return fd;
}

Listener::Listener(const char* address, std::uint16_t port)
{
    fd_ = bound_ipv4_socket(SOCK_STREAM, address, port, port_);
    if (listen(fd_, 16) != 0) {
        close(fd_);
        throw std::runtime_error(std::string("cannot listen on ") + address);
    }
}

Listener::~Listener()
{
    close(fd_);
}

} // namespace nr::itest
