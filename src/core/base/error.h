// SPDX-License-Identifier: Apache-2.0
#pragma once
// Typed failures of the pure core. Every refusal carries a kind that the
// D-Bus adaptor maps one-to-one to org.metis.NativeRuntime1.Error.<Name>,
// so callers branch on the kind and never parse message text.

#include <stdexcept>
#include <string>
#include <string_view>

namespace nr::core {

enum class ErrorKind {
    AccessDenied,
    InvalidArgument,
    InvalidPath,
    InvalidEnvironment,
    UnknownAdapter,
    SessionBusy,
    NoSuchSession,
    ConfigInvalid,
    SystemdFailure,
    LaunchFailed,
    // A host prerequisite failed its preflight check; the message starts
    // with the check's name (docs/troubleshooting.md).
    PreflightFailed,
    // systemd's effective value of a planned property is weaker than the
    // plan (a drop-in overrode it): the session is stopped, not run.
    HardeningNotApplied,
    // File operations on a session's tree (docs/file-operations.md).
    NoSuchFile,
    UnsafeFile,
    FileTooLarge,
    FileChanged,
    ReceiptInvalid,
    ReceiptMismatch,
    ReceiptStale,
    // A handle or receipt past its expiry (files.receipt_ttl_sec).
    ReceiptExpired,
    // A handle already recorded, or a receipt already reverted.
    ReceiptUsed,
    // The call reached a helper that had begun to exit (idle or stopped)
    // and would have had to wait: nothing was done, and the same call made
    // again goes to the helper the bus activates next.
    HelperStopping,
};

// Short name used as the last component of the D-Bus error name.
std::string_view error_name(ErrorKind kind);

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string& message);
    [[nodiscard]] ErrorKind kind() const noexcept { return kind_; }

private:
    ErrorKind kind_;
};

[[noreturn]] void fail(ErrorKind kind, const std::string& message);

} // namespace nr::core
