// SPDX-License-Identifier: Apache-2.0
#pragma once
// The descriptors the service manager passed this process (LISTEN_FDS,
// LISTEN_FDNAMES): its sockets and whatever it kept in the descriptor store.

#include "sys/base/unique_fd.h"

#include <string>
#include <vector>

namespace nr::sys {

struct ListenFd {
    UniqueFd fd;
    std::string name; // "" when the manager gave it none
};

// Takes every passed descriptor, in the order passed, and unsets the
// variables so that no child inherits them. Empty when this process was not
// started with any. Throws std::runtime_error when the variables are
// malformed.
std::vector<ListenFd> take_listen_fds();

} // namespace nr::sys
