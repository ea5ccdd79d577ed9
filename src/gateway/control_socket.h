// SPDX-License-Identifier: Apache-2.0
#pragma once
// The gateway's control socket, below Asio: a SOCK_SEQPACKET unix socket
// whose every datagram is one core::GatewayControl message, from root only,
// a registration carrying the session's listener (SCM_RIGHTS).

#include "sys/base/unique_fd.h"

#include <optional>
#include <string>

namespace nr::gateway {

// Binds and listens on `path` (mode 0600, a stale socket is replaced).
sys::UniqueFd bind_control_socket(const std::string& path);

bool peer_is_root(int connection);

struct ControlDatagram {
    bool closed = false; // the peer hung up
    bool again = false;  // nothing to read yet
    std::string error;   // a malformed datagram (truncated, several descriptors)
    std::string message;
    sys::UniqueFd descriptor;
};

// One non-blocking recvmsg.
ControlDatagram receive_datagram(int connection);

void send_reply(int connection, const std::string& reply);

// Empty when `fd` is a listening AF_INET SOCK_STREAM socket, else why not.
std::string listener_problem(int fd);

} // namespace nr::gateway
