// SPDX-License-Identifier: Apache-2.0
#pragma once
// How the launcher hands a session over to its supervisor. The launcher
// forks: the child loads the supervised seccomp filter, hands its listener
// to the parent and becomes bwrap; the parent execs
// native-runtime-supervise (src/supervise), which stays bwrap's parent for
// the whole session, outside the sandbox's namespaces, non-dumpable, to
//  - answer the supervised seccomp filter (core/launch/denial_tally.h): every
//    refused listen/accept/io_uring call is counted, and a bounded number
//    are logged to the journal, where journald files them under the
//    session's unit (_SYSTEMD_UNIT=), with one summary when the sandbox ends;
//  - hold a serial adapter's turn (launcher/host_auth_turn.h) until the
//    sandbox has exited;
//  - stop the sandbox when the worker stops reading the session's stdout
//    (stream disposal, sys/base/output_watch.h and the stdio-host contract in
//    docs/adapters.md): bwrap is killed, which kills the sandbox's PID
//    namespace (--die-with-parent), and the supervisor ends with SIGPIPE.
// Otherwise it ends the way bwrap did (exit status or signal), so systemd
// records what it would have recorded for bwrap itself.
//
// Why an exec and not the launcher itself: the launcher maps libstdc++,
// sdbus-c++, libsystemd (and what it pulls in) and libseccomp, and its
// memory held the launch spec. The supervisor is linked against libc alone
// and gets only descriptors and non-secret numbers (core/launch/supervisor_args.h),
// so what a held session costs besides bwrap is a few pages. The exec
// happens in the parent, after the fork, so it is off the child's path to
// bwrap and adds nothing to the start-up.

#include "core/launch/seccomp_types.h"
#include "sys/fs/admission_lock.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nr::launcher {

// Forks: the child loads the supervised filter for `supervised`, hands its
// listener to the parent and runs `become_sandbox` (which execs bwrap and
// only returns by throwing). The parent wipes `secrets` and execs the
// supervisor with the child, the listener and `turn`; if that exec fails,
// it kills the child, logs why and exits 125 (fail closed: no sandbox runs
// unsupervised).
[[noreturn]] void run_supervised(std::optional<sys::AdmissionTicket> turn, std::vector<std::string>& secrets,
                                 const std::vector<core::SyscallRule>& supervised,
                                 const std::function<void()>& become_sandbox);

} // namespace nr::launcher
