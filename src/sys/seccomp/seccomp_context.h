// SPDX-License-Identifier: Apache-2.0
#pragma once
// What both of the launcher's seccomp programs (bwrap's, sys/seccomp/seccomp_filter,
// and the supervised one, sys/seccomp/seccomp_notify) need from libseccomp: an owned
// filter context and one way to turn a libseccomp failure into LaunchFailed,
// so that no failure leaves a partial filter behind.

#include "core/base/error.h"

#include <seccomp.h>

#include <cstring>
#include <memory>
#include <string>

namespace nr::sys {

struct SeccompContextDeleter {
    void operator()(scmp_filter_ctx ctx) const { seccomp_release(ctx); }
};
using SeccompContext = std::unique_ptr<void, SeccompContextDeleter>;

// libseccomp returns -errno; `program` names the filter in the message.
inline void check_seccomp(int rc, const std::string& program, const std::string& what)
{
    if (rc < 0) {
        core::fail(core::ErrorKind::LaunchFailed, program + ": " + what + ": " + std::strerror(-rc));
    }
}

} // namespace nr::sys
