#pragma once
// The launcher's supervised seccomp filter (see core/denial_tally.h): loaded
// in the process that becomes bwrap, answered by the launcher outside the
// sandbox. The answer is always the rule's errno: the supervisor never lets
// a call run and never reads the caller's memory, so there is nothing for a
// sandboxed process to race.

#include "core/seccomp_rules.h"
#include "sys/unique_fd.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nr::sys {

// Loads, into the calling process, a filter whose action for each rule's
// call is SECCOMP_RET_USER_NOTIF, and returns its listener. Throws
// core::Error(LaunchFailed): a kernel without the listener fails the
// launch, it is not skipped.
UniqueFd load_notify_filter(const std::vector<core::SyscallRule>& rules);

struct AnsweredCall {
    std::string syscall;
    int errno_value = 0;
    int pid = 0; // in the launcher's PID namespace
};

class NotifyResponder {
public:
    NotifyResponder(int listener, const std::vector<core::SyscallRule>& rules);

    // Receives one pending notification and refuses the call; nullopt when
    // the caller went away meanwhile.
    std::optional<AnsweredCall> answer_one();

private:
    int listener_;
    std::map<int, std::pair<std::string, int>> by_number_;
};

// One descriptor over a unix socket (SCM_RIGHTS).
void send_descriptor(int socket, int fd);
UniqueFd receive_descriptor(int socket);

} // namespace nr::sys
