#pragma once
// The network namespace of a `network: gateway` session (core/egress.h):
// the launcher makes it for itself, as the session user, before bwrap, and
// opens in it the one listener through which the session reaches the egress
// gateway. bwrap then keeps this namespace (--share-net), so the agent's
// only way out is that listener, whose descriptor only the gateway holds.

#include <cstdint>

#include "sys/unique_fd.h"

namespace nr::sys {

// unshare(CLONE_NEWUSER | CLONE_NEWNET), then maps the caller's uid and gid
// to themselves (setgroups denied first, as an unprivileged gid_map needs),
// so bwrap and the supervisor see the same ids as before, and brings `lo`
// up. The caller must be single-threaded and dumpable while it writes its
// maps (a non-dumpable process's /proc/self files belong to root), so it
// runs before the launcher holds anything secret. Throws
// Error(LaunchFailed) naming the step that failed.
void enter_private_network();

// A TCP socket bound to 127.0.0.1:`port` in the caller's network
// namespace, listening, close-on-exec. Throws Error(LaunchFailed) naming
// the step that failed.
UniqueFd listen_on_loopback(std::uint16_t port);

} // namespace nr::sys
