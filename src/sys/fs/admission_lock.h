// SPDX-License-Identifier: Apache-2.0
#pragma once
// A place in a host-auth admission queue (see core/launch/admission_queue.h for
// the protocol), held as an flock on a ticket file. The kernel drops the
// lock with the last descriptor, so a launcher that crashes or is stopped
// while waiting or running gives its place up without any cleanup code.
//
// The queue directory is owner-only state: every component from the base
// down is created 0700 by the session user without following symlinks;
// one that is a symlink, owned by someone else or writable by group or
// others fails closed (core::Error InvalidPath), and so does a queue
// directory with any group/other permission bit or a ticket that is not a
// 0600 regular file of the session user with a single link. There is no
// fallback location.

#include <cstdint>
#include <functional>
#include <string>

#include "sys/base/admission_turn.h"
#include "sys/base/unique_fd.h"

namespace nr::sys {

class AdmissionTicket {
public:
    // Opens (creating it if needed) base/queue_dir and takes the next ticket.
    static AdmissionTicket enqueue(const std::string& base, const std::string& queue_dir);

    // Blocks until every older ticket has been released. `report` gets the
    // number of live tickets ahead whenever it changes while waiting, and 0
    // once admitted after a wait; it is not called when nobody was ahead.
    void wait_turn(const std::function<void(std::size_t)>& report);

    // The ticket file is removed when the turn (held()) is destroyed, and
    // the lock goes with the ticket's last descriptor.
    ~AdmissionTicket() = default;
    AdmissionTicket(AdmissionTicket&&) = default;
    AdmissionTicket& operator=(AdmissionTicket&&) = delete;
    AdmissionTicket(const AdmissionTicket&) = delete;
    AdmissionTicket& operator=(const AdmissionTicket&) = delete;

    [[nodiscard]] std::uint64_t number() const { return held_.number(); }

    // The descriptors and number a supervisor needs to hold the turn.
    [[nodiscard]] const HeldTurn& held() const { return held_; }

private:
    AdmissionTicket(UniqueFd dir, UniqueFd ticket, std::uint64_t number, std::string shown);

    HeldTurn held_;
    std::string shown_; // the queue directory, for messages
};

} // namespace nr::sys
