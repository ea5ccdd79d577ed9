// SPDX-License-Identifier: Apache-2.0
#include "core/cli/cli_exit.h"

#include "core/bus/bus_names.h"

namespace nr::core {

namespace {

constexpr std::int32_t kCldExited = 1;

} // namespace

int cli_exit_status(CliFailure failure)
{
    switch (failure) {
    case CliFailure::CheckFailed: return kExitCheckFailed;
    case CliFailure::Usage: return kExitUsage;
    case CliFailure::Refused: return kExitRefused;
    case CliFailure::Internal: return kExitInternal;
    case CliFailure::Unavailable: return kExitUnavailable;
    case CliFailure::IoError: return kExitIoError;
    case CliFailure::ConfigInvalid: return kExitConfig;
    }
    return kExitInternal;
}

// No default: a new ErrorKind does not compile (-Wswitch -Werror) until it
// has its row here.
CliFailure cli_failure_of(ErrorKind kind)
{
    switch (kind) {
    // A value on the command line is malformed (an id, --json=MODE, a
    // missing --env variable): nothing was asked of anyone.
    case ErrorKind::InvalidArgument: return CliFailure::Usage;
    // A well-formed request that a check refused, as the helper would
    // (an existing directory with a looser mode, no such session).
    case ErrorKind::InvalidPath:
    case ErrorKind::InvalidEnvironment:
    case ErrorKind::UnknownAdapter:
    case ErrorKind::ReceiptInvalid:
    case ErrorKind::AccessDenied:
    case ErrorKind::SessionBusy:
    case ErrorKind::NoSuchSession:
    case ErrorKind::LaunchFailed:
    case ErrorKind::HardeningNotApplied:
    case ErrorKind::NoSuchFile:
    case ErrorKind::UnsafeFile:
    case ErrorKind::FileTooLarge:
    case ErrorKind::FileChanged:
    case ErrorKind::ReceiptMismatch:
    case ErrorKind::ReceiptStale:
    case ErrorKind::ReceiptExpired:
    case ErrorKind::ReceiptUsed: return CliFailure::Refused;
    case ErrorKind::PreflightFailed: return CliFailure::CheckFailed;
    case ErrorKind::ConfigInvalid: return CliFailure::ConfigInvalid;
    case ErrorKind::SystemdFailure:
    case ErrorKind::HelperStopping: return CliFailure::Unavailable;
    }
    return CliFailure::Internal;
}

CliFailure cli_failure_of_bus_error(std::string_view name)
{
    // Not a judgement of the request: the helper was exiting each time it
    // was asked (native-runtimectl asks again a few times first).
    if (name == bus_error_name(ErrorKind::HelperStopping)) {
        return CliFailure::Unavailable;
    }
    // Every other refusal of the helper, whatever its kind: the helper
    // judged a well-formed request.
    if (is_helper_error(name)) {
        return CliFailure::Refused;
    }
    // The bus policy refused the call (the caller is not in the worker group).
    if (name == "org.freedesktop.DBus.Error.AccessDenied" ||
        name == "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired") {
        return CliFailure::Refused;
    }
    // sd-bus refuses to send a value it cannot encode (a string that is not
    // UTF-8, an object path that is none) under this name, before any call.
    if (name == "org.freedesktop.DBus.Error.InvalidArgs") {
        return CliFailure::Usage;
    }
    if (name == "org.freedesktop.systemd1.NoSuchUnit") {
        return CliFailure::Refused;
    }
    // ServiceUnknown, NoReply, Disconnected, Timeout, SpawnFailed, ...
    return CliFailure::Unavailable;
}

int session_exit_status(const std::string& result, std::int32_t code, std::int32_t status)
{
    if (result == "unknown") {
        return kExitEndLost;
    }
    // systemd stops a unit that reached RuntimeMaxSec with SIGTERM, which
    // alone would read as 143: report the limit instead.
    if (result == "timeout") {
        return kExitRuntimeLimit;
    }
    // cgroup v2 reports the OOM killer as a result of its own; report it
    // as the SIGKILL it is, as cgroup v1 hosts do anyway.
    if (result == "oom-kill") {
        return kExitSignalBase + 9;
    }
    if (code == kCldExited) {
        return status & 0xff;
    }
    if (code > kCldExited && status > 0) {
        return kExitSignalBase + (status & 0x7f);
    }
    return kExitEndLost;
}

} // namespace nr::core
