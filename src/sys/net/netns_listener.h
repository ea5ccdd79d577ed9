// SPDX-License-Identifier: Apache-2.0
#pragma once
// The network namespace of a `network: gateway` session (core/gateway/egress.h):
// the launcher makes it for itself, as the session user, before bwrap, and
// opens in it the one listener through which the session reaches the egress
// gateway. bwrap then keeps this namespace (--share-net), so the agent's
// only way out is that listener, whose descriptor only the gateway holds.

#include <cstdint>

#include "sys/base/unique_fd.h"

namespace nr::sys {

// The session's user and network namespace, held by descriptor.
struct PrivateNetwork {
    UniqueFd user_ns;
    UniqueFd net_ns;
};

// Makes the namespace in a child forked now, while the caller holds nothing
// secret, and returns it by descriptor (the child closes every descriptor
// it inherited but its answer socket, then makes itself dumpable, which
// writing its uid_map needs; the caller stays as it was); the
// caller joins it later with join_private_network. The launcher cannot
// simply enter it first: in it, root is unmapped (an unprivileged uid_map
// names one id), so every "owned by root" check of paths the spec names
// would see the overflow uid. Throws Error(LaunchFailed).
PrivateNetwork make_private_network();

// setns() into both, user namespace first (the caller's euid owns it, so it
// has the capability to join the network namespace from there). Call it
// after the last check of a path's owner. Throws Error(LaunchFailed).
void join_private_network(const PrivateNetwork& network);

// A TCP socket bound to 127.0.0.1:`port` in the caller's network
// namespace, listening, close-on-exec. Throws Error(LaunchFailed) naming
// the step that failed.
UniqueFd listen_on_loopback(std::uint16_t port);

} // namespace nr::sys
