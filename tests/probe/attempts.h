// SPDX-License-Identifier: Apache-2.0
#pragma once
// nr-probe's `try` and `try-invalid` verbs: one syscall attempt per name,
// each in a child process of its own, printed as "<name>=<ok|ERRNO|SIGNAL>".
//
// `try NAME...` makes a real, harmless call (a tmpfs mount on a fresh
// directory in /tmp, a key in the child's own process keyring, ptrace of its
// own child, ...). `try-invalid NAME...` makes the call with an argument the
// kernel rejects (EFAULT, EBADF, EINVAL, ...): outside a sandbox that answer
// shows the call reached the kernel; inside, seccomp answers before the
// kernel reads any argument, so EPERM there can only come from the filter,
// never from a missing capability.

#include <string>
#include <vector>

namespace nr::probe {

// Returns the exit status for nr-probe: 0, or 2 for a name it does not know.
int try_real(const std::vector<std::string>& names);
int try_invalid(const std::vector<std::string>& names);

} // namespace nr::probe
