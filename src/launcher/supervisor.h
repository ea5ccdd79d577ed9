#pragma once
// The launcher stays as bwrap's parent for the whole session, outside the
// sandbox's namespaces, non-dumpable, to
//  - answer the supervised seccomp filter (core/denial_tally.h): every
//    refused listen/accept/io_uring call is counted, and a bounded number
//    are logged to the journal, where journald files them under the
//    session's unit (_SYSTEMD_UNIT=), with one summary when the sandbox ends;
//  - hold a serial adapter's turn (launcher/host_auth_turn.h) until the
//    sandbox has exited;
//  - stop the sandbox when the worker stops reading the session's stdout
//    (stream disposal, sys/output_watch.h and the stdio-host contract in
//    docs/adapters.md): bwrap is killed, which kills the sandbox's PID
//    namespace (--die-with-parent), and the launcher ends with SIGPIPE.
// Otherwise it ends the way bwrap did (exit status or signal), so systemd
// records what it would have recorded for bwrap itself.

#include "core/seccomp_rules.h"
#include "sys/admission_lock.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nr::launcher {

// Forks: the child loads the supervised filter for `supervised`, hands its
// listener to the parent and runs `become_sandbox` (which execs bwrap and
// only returns by throwing). The parent wipes `secrets`, answers the
// filter until the child exits, releases `turn` and ends like the child.
[[noreturn]] void run_supervised(std::optional<sys::AdmissionTicket> turn, std::vector<std::string>& secrets,
                                 const std::vector<core::SyscallRule>& supervised,
                                 const std::function<void()>& become_sandbox);

} // namespace nr::launcher
