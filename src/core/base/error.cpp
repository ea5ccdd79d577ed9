// SPDX-License-Identifier: Apache-2.0
#include "core/base/error.h"

namespace nr::core {

std::string_view error_name(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::AccessDenied: return "AccessDenied";
    case ErrorKind::InvalidArgument: return "InvalidArgument";
    case ErrorKind::InvalidPath: return "InvalidPath";
    case ErrorKind::InvalidEnvironment: return "InvalidEnvironment";
    case ErrorKind::UnknownAdapter: return "UnknownAdapter";
    case ErrorKind::SessionBusy: return "SessionBusy";
    case ErrorKind::NoSuchSession: return "NoSuchSession";
    case ErrorKind::ConfigInvalid: return "ConfigInvalid";
    case ErrorKind::SystemdFailure: return "SystemdFailure";
    case ErrorKind::LaunchFailed: return "LaunchFailed";
    case ErrorKind::PreflightFailed: return "PreflightFailed";
    case ErrorKind::HardeningNotApplied: return "HardeningNotApplied";
    case ErrorKind::NoSuchFile: return "NoSuchFile";
    case ErrorKind::UnsafeFile: return "UnsafeFile";
    case ErrorKind::FileTooLarge: return "FileTooLarge";
    case ErrorKind::FileChanged: return "FileChanged";
    case ErrorKind::ReceiptInvalid: return "ReceiptInvalid";
    case ErrorKind::ReceiptMismatch: return "ReceiptMismatch";
    case ErrorKind::ReceiptStale: return "ReceiptStale";
    case ErrorKind::ReceiptExpired: return "ReceiptExpired";
    case ErrorKind::ReceiptUsed: return "ReceiptUsed";
    case ErrorKind::HelperStopping: return "HelperStopping";
    }
    return "Failed";
}

Error::Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}

void fail(ErrorKind kind, const std::string& message)
{
    throw Error(kind, message);
}

} // namespace nr::core
