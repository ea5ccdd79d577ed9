// SPDX-License-Identifier: Apache-2.0
#pragma once
// Sockets the integration tests listen on in the harness's own network
// namespace, where every address lives on its loopback device (the cloud
// metadata address included), so nothing a probe reaches is beyond this
// machine.

#include <cstdint>
#include <string>

namespace nr::itest {

// A socket of `type` bound to `address` and `port` (0: an ephemeral one),
// whose port number is written to `port_out`. Throws when it cannot bind.
int bound_ipv4_socket(int type, const char* address, std::uint16_t port, std::string& port_out);

// A TCP listener the kernel completes handshakes for; no accept needed.
class Listener {
public:
    explicit Listener(const char* address, std::uint16_t port = 0);
    Listener(const Listener&) = delete;
    Listener& operator=(const Listener&) = delete;
    Listener(Listener&&) = delete;
    Listener& operator=(Listener&&) = delete;
    ~Listener();

    [[nodiscard]] const std::string& port() const { return port_; }

private:
    int fd_ = -1;
    std::string port_;
};

} // namespace nr::itest
