// SPDX-License-Identifier: Apache-2.0
#pragma once
// Decisions of the host-auth admission queue, kept apart from the file locks
// that carry them out (src/sys/admission_lock.*).
//
// The queue is a directory of ticket files named by an increasing number.
// A newcomer takes the next number while holding the directory's queue lock,
// and keeps an exclusive flock on its own ticket for as long as it waits or
// runs. It is admitted once no older ticket is held any more: it blocks on
// the oldest live ticket ahead of it, and when that one is released (its
// session ended, was stopped while waiting, or its launcher crashed, which
// the kernel turns into a release) it looks again. Arrival order is
// therefore admission order, without polling.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nr::core {

// The file whose lock serialises taking a number.
inline constexpr std::string_view kQueueLockName = "queue.lock";

// "ticket-00000000000000000042": zero-padded, so names sort like numbers.
std::string ticket_name(std::uint64_t number);

// The number in a ticket name, or nullopt for any other name (strict: only
// the form ticket_name() produces, number > 0).
std::optional<std::uint64_t> parse_ticket_name(std::string_view name);

// Ticket numbers among directory entry names, ascending; other names ignored.
std::vector<std::uint64_t> tickets_in(const std::vector<std::string>& entry_names);

// The number a newcomer takes: one past the highest ticket present, 1 for an
// empty queue. Throws Error(LaunchFailed) if the numbers are exhausted.
std::uint64_t next_ticket(const std::vector<std::uint64_t>& present);

// Tickets older than `mine`, oldest first: the order a waiter checks them in.
std::vector<std::uint64_t> tickets_ahead(const std::vector<std::uint64_t>& present, std::uint64_t mine);

} // namespace nr::core
