#pragma once
// The launcher stays the parent of bwrap for as long as the sandbox runs,
// outside the sandbox's namespaces and Landlock domain, non-dumpable and
// without the credentials (wiped once the child has them). From there it
//  - holds a serial adapter's host-auth turn (see host_auth_turn.h), and
//  - stops the sandbox when the worker stops reading the session's stdout
//    (stream disposal, see sys/output_watch.h and the stdio-host contract
//    in docs/adapters.md): bwrap is killed, which kills the sandbox's PID
//    namespace (--die-with-parent), and the launcher ends with SIGPIPE.
// Otherwise it ends the way bwrap ended (exit status or signal), so systemd
// records what it would have recorded for bwrap itself.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sys/admission_lock.h"

namespace nr::launcher {

// Forks: the child runs `become_sandbox` (which execs bwrap and only returns
// by throwing); the parent wipes `secrets`, keeps `turn` (if any) until the
// child has exited, and ends as described above.
[[noreturn]] void run_supervised(std::optional<sys::AdmissionTicket> turn, std::vector<std::string>& secrets,
                                 const std::function<void()>& become_sandbox);

} // namespace nr::launcher
