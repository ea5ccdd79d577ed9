// SPDX-License-Identifier: Apache-2.0
#pragma once
// What native-runtime-supervise does for one session, from the arguments the
// launcher exec'd it with (core/launch/supervisor_args.h; the why is in
// launcher/supervisor.h): answer the supervised seccomp filter, hold the
// host-auth turn, kill bwrap when the worker stops reading the session's
// stdout, and end the way bwrap ended.

#include "core/launch/supervisor_args.h"

#include <string_view>

namespace nr::supervise {

// Runs until the child has exited and ends this process like it: its exit
// status, or its signal (SIGPIPE when the worker stopped reading). Any
// failure kills the child first and exits 125.
[[noreturn]] void supervise(const core::SupervisorArgs& args);

// Prints "native-runtime-launch: MESSAGE" on stderr (the worker's
// descriptor) and logs it at priority error, then exits 125. The session's
// side of the product speaks as the launcher: the supervisor is the
// launcher's second half, and operators and workers match that name.
[[noreturn]] void fail_session(std::string_view message);

} // namespace nr::supervise
