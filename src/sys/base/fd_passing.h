// SPDX-License-Identifier: Apache-2.0
#pragma once
// Handing a descriptor to another process over a unix socket: the seccomp
// listener from bwrap's side to the launcher, and a gateway session's
// namespaces from the child that entered them.

#include "sys/base/unique_fd.h"

namespace nr::sys {

// One descriptor over a unix socket (SCM_RIGHTS). Throws
// core::Error(LaunchFailed) when the send fails.
void send_descriptor(int socket, int fd);

// The descriptor of one such message, or an empty UniqueFd when the peer
// sent none (it closed its end, or sent something else).
UniqueFd receive_descriptor(int socket);

} // namespace nr::sys
