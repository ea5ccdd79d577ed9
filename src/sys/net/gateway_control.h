// SPDX-License-Identifier: Apache-2.0
#pragma once
// The helper's side of the egress gateway's control socket (core/gateway/egress.h):
// one SOCK_SEQPACKET datagram out, optionally with one descriptor beside it
// (SCM_RIGHTS), and the gateway's one-datagram answer back.

#include <chrono>
#include <string>

namespace nr::sys {

// Connects to `socket_path`, sends `message` with `fd` attached (none when
// fd < 0) and returns the answer datagram as received. Throws
// Error(LaunchFailed): a socket that does not exist or refuses the
// connection says the gateway is not installed or not started; a send,
// receive or `timeout` failure names the step.
std::string gateway_exchange(const std::string& socket_path, const std::string& message, int fd,
                             std::chrono::milliseconds timeout);

} // namespace nr::sys
