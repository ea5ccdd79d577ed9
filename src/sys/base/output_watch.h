// SPDX-License-Identifier: Apache-2.0
#pragma once
// Waiting for a child while watching the reader of an output descriptor.
//
// A session's stdout is the worker's pipe (or socket). When the worker
// closes its reading end, nobody will ever read what the session writes:
// the stream has been disposed of. A session that is silent at that moment
// (waiting on a long tool call, or ignoring EPIPE) would never notice, so
// the launcher, which stays the parent of bwrap, notices for it: a pipe's
// writing end reports POLLERR once no reader is left, a stream socket and a
// terminal report POLLHUP once the peer is gone. Nothing is read from or
// written to the descriptor; a half-close of the session's stdin changes
// nothing here.

#include <sys/types.h>

#include <functional>

namespace nr::sys {

struct ChildEnd {
    int wait_status = 0;      // as from waitpid
    bool reader_gone = false; // the child was killed because `watched_fd` lost its reader
};

// Blocks until `child` exits, or until `watched_fd` has no reader any more,
// in which case `child` is killed with SIGKILL and reaped. A descriptor that
// is not open (POLLNVAL), or a regular file, is never reported gone.
// Meanwhile, whenever `served_fd` (if >= 0) is readable, `serve` is called;
// once it hangs up it is no longer polled (the launcher's seccomp listener:
// no process uses the filter any more).
// Throws core::Error (LaunchFailed) when the child cannot be watched; the
// child is killed and reaped first, so nothing runs unwatched.
ChildEnd wait_child_or_reader_gone(pid_t child, int watched_fd, int served_fd = -1,
                                   const std::function<void()>& serve = {});

} // namespace nr::sys
