// SPDX-License-Identifier: Apache-2.0
#pragma once
// The answering half of the supervised seccomp filter (core/launch/denial_tally.h),
// in native-runtime-supervise, outside the sandbox. The filter itself is
// loaded by the launcher's child (sys/seccomp/seccomp_notify.h), which resolved the
// calls' numbers with libseccomp; this half needs only the listener and
// those numbers, and talks to the kernel with its ioctls directly, so the
// process that lives as long as the session does not map libseccomp.
//
// The answer is always the call's errno: the supervisor never lets a call
// run and never reads the caller's memory, so there is nothing for a
// sandboxed process to race.

#include "core/launch/supervisor_args.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nr::sys {

struct AnsweredCall {
    std::string syscall;
    int errno_value = 0;
    int pid = 0; // in the supervisor's PID namespace
};

class NotifyResponder {
public:
    // Throws core::Error(LaunchFailed) when the kernel does not say how
    // large its notifications are.
    NotifyResponder(int listener, const std::vector<core::SupervisedCall>& calls);

    // Receives one pending notification and refuses the call (a number not
    // in `calls` gets ENOSYS); nullopt when the caller went away meanwhile.
    std::optional<AnsweredCall> answer_one();

private:
    int listener_;
    std::map<int, std::pair<std::string, int>> by_number_;
    std::vector<unsigned char> request_; // zeroed before each receive, as the kernel demands
    std::vector<unsigned char> response_;
};

} // namespace nr::sys
