// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the launcher hands to native-runtime-supervise when it execs it in
// place of itself (launcher/supervisor.h): the child it forked (bwrap), the
// descriptors the supervisor inherits and the supervised calls it answers.
//
// They travel as the supervisor's argv, which any process of the host can
// read under /proc: everything here is non-secret by construction (numbers
// and syscall names; the agent's environment never reaches the supervisor).
// The decoder is strict, so that a launcher and a supervisor of different
// builds fail the session (exit 125) instead of supervising it in part:
//
//   --child PID [--listener FD] [--turn DIRFD,TICKETFD,NUMBER]
//   [--refuse NR,NAME,ERRNO]...

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nr::core {

// One call of the supervised filter: its native syscall number, as the
// kernel reports it in a notification, the name the journal records use and
// the errno the caller gets.
struct SupervisedCall {
    int number = 0;
    std::string name;
    int errno_value = 0;

    bool operator==(const SupervisedCall&) const = default;
};

// A host-auth turn the supervisor holds until the sandbox has exited: the
// queue directory and the locked ticket file, and the ticket's number (its
// name, core/launch/admission_queue.h).
struct HeldTurnFds {
    int dir_fd = -1;
    int ticket_fd = -1;
    std::uint64_t number = 0;

    bool operator==(const HeldTurnFds&) const = default;
};

struct SupervisorArgs {
    int child_pid = 0;
    // The supervised filter's listener; nullopt when the child failed before
    // it loaded the filter (it logs why and exits 125): nothing to answer.
    std::optional<int> listener_fd;
    std::optional<HeldTurnFds> turn;
    std::vector<SupervisedCall> calls;

    bool operator==(const SupervisorArgs&) const = default;
};

// The arguments after argv[0]. Throws Error(LaunchFailed) for arguments
// decode_supervisor_args would refuse, so nothing is exec'd that cannot be
// read back.
std::vector<std::string> encode_supervisor_args(const SupervisorArgs& args);

// Throws Error(LaunchFailed) unless `args` (after argv[0]) is exactly what
// encode_supervisor_args makes of some valid SupervisorArgs: a child PID
// above 1; descriptors above stderr, all distinct; a ticket number above 0;
// calls with a non-negative number (decimal without leading zeros, as are
// all numbers here), a name of [a-z0-9_] (1 to 64 characters), an errno in
// 1..4095, and no number or name twice; every option at most once but
// --refuse, and no other words.
SupervisorArgs decode_supervisor_args(const std::vector<std::string>& args);

// The descriptors `args` names, ascending (what the supervisor keeps open
// besides stdin, stdout and stderr).
std::vector<int> inherited_fds(const SupervisorArgs& args);

} // namespace nr::core
