// SPDX-License-Identifier: Apache-2.0
#pragma once
// The launcher's part of host-auth admission: wait for the session's turn
// inside its own unit (so the wait counts toward RuntimeMaxSec and a stop
// cancels it), tell the helper while waiting, and hold the turn for as long
// as the sandbox runs.
//
// Who holds the lock matters: a descriptor inherited into the sandbox could
// be unlocked by model-controlled code, admitting the next session early.
// bwrap cannot hold it for us: its monitor outside the sandbox closes every
// extra descriptor, and --sync-fd is kept by the sandbox's own PID 1, which
// code in the sandbox can see. So the launcher takes it and hands both
// descriptors across its exec to native-runtime-supervise, bwrap's parent
// (launcher/supervisor.h), which holds it until the sandbox has exited;
// nothing else inherits them.

#include <cstddef>
#include <functional>
#include <optional>

#include "core/launch/launch_spec.h"
#include "sys/fs/admission_lock.h"

namespace nr::launcher {

// Tells the helper how many sessions are ahead while waiting (over the
// helper channel); it only
// informs the worker, so a report that fails neither admits the session
// nor ends its wait.
using WaitReporter = std::function<void(std::size_t ahead)>;

// nullopt for a client-managed adapter; otherwise blocks until admitted,
// reporting each wait. Throws core::Error when the lock state is unsafe
// (no fallback).
std::optional<sys::AdmissionTicket> take_turn(const core::LaunchSpec& spec, const WaitReporter& report);

// The turn is then handed over by launcher/supervisor.h's run_supervised.

} // namespace nr::launcher
