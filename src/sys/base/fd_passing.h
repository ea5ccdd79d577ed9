// SPDX-License-Identifier: Apache-2.0
#pragma once
// Handing a descriptor to another process over a unix socket: the seccomp
// listener from bwrap's side to the launcher, and a gateway session's
// namespaces from the child that entered them.

#include "sys/base/unique_fd.h"

#include <string_view>

namespace nr::sys {

// One message of `data` (not empty) and, when `fd` >= 0, that descriptor
// (SCM_RIGHTS), sent whole with sendmsg `flags` plus MSG_NOSIGNAL. False
// with errno set when it was not (EINTR is retried).
bool send_with_descriptor(int socket, std::string_view data, int fd, int flags);

// One descriptor over a unix socket (SCM_RIGHTS). Throws
// core::Error(LaunchFailed) when the send fails.
void send_descriptor(int socket, int fd);

// The descriptor of one such message, or an empty UniqueFd when the peer
// sent none (it closed its end, or sent something else).
UniqueFd receive_descriptor(int socket);

} // namespace nr::sys
