// SPDX-License-Identifier: Apache-2.0
#pragma once
// The product's exit statuses in one place: native-runtimectl's one table
// from a failure to an exit status, shared by every verb and documented in
// docs/man/native-runtimectl.1.md (EXIT STATUS), and the statuses the helper
// and the launcher end with. They follow sysexits.h where one fits, as
// hostnamectl and friends leave them free; `run` adds the statuses of the
// session's own end, which include the launcher's.

#include "core/base/error.h"
#include "core/base/exit_codes.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace nr::core {

// What went wrong, as far as the caller of the CLI must tell apart.
enum class CliFailure {
    CheckFailed,   // a host check or a drop-in verification failed (preflight, install-dropins)
    Usage,         // the command line or a value on it is invalid; nothing was asked of anyone
    Refused,       // the helper, the bus policy or systemd refused the request (no such session, ...)
    Internal,      // a bug: an unexpected exception
    Unavailable,   // the bus, systemd or the helper could not be reached or failed
    IoError,       // reading or writing a local file or stream failed
    ConfigInvalid, // the configuration file is missing or invalid
};

int cli_exit_status(CliFailure failure);

// A typed error the CLI raised itself (validating input, reading systemd,
// the config or the journal).
CliFailure cli_failure_of(ErrorKind kind);

// A D-Bus error reply or a client-side sd-bus error, by its name.
CliFailure cli_failure_of_bus_error(std::string_view name);

// systemd's Result/ExecMainCode/ExecMainStatus of a session that ended ->
// `run`'s status: the command's own status when it exited, 128+N when
// signal N ended it, kExitRuntimeLimit, or kExitEndLost when unknown.
int session_exit_status(const std::string& result, std::int32_t code, std::int32_t status);

} // namespace nr::core
