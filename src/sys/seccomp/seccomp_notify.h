// SPDX-License-Identifier: Apache-2.0
#pragma once
// The loading half of the supervised seccomp filter (see
// core/launch/denial_tally.h), in the launcher: the calls' numbers, resolved with
// libseccomp, the filter loaded in the process that becomes bwrap, and the
// hand-over of its listener to the launcher's parent process, which then
// becomes native-runtime-supervise and answers it (sys/base/notify_responder.h).

#include "core/launch/seccomp_types.h"
#include "core/launch/supervisor_args.h"
#include "sys/base/unique_fd.h"

#include <vector>

namespace nr::sys {

// The rules as calls the supervisor answers: each name resolved to its
// native number. Throws core::Error(LaunchFailed) for a name libseccomp does
// not know or a rule with an argument match (a notification cannot tell
// those apart from other calls of the same name).
std::vector<core::SupervisedCall> supervised_calls(const std::vector<core::SyscallRule>& rules);

// Loads, into the calling process, a filter whose action for each call is
// SECCOMP_RET_USER_NOTIF, and returns its listener. Throws
// core::Error(LaunchFailed): a kernel without the listener fails the
// launch, it is not skipped.
UniqueFd load_notify_filter(const std::vector<core::SupervisedCall>& calls);

} // namespace nr::sys
