// SPDX-License-Identifier: Apache-2.0
#pragma once
// A host-auth turn once it has been taken (sys/fs/admission_lock.h): the queue
// directory and the ticket whose exclusive flock is the turn. The launcher
// takes it; native-runtime-supervise, which the launcher becomes once bwrap
// has been forked, inherits both descriptors and holds it until the sandbox
// has exited. That half needs nothing of the queue's rules, only this.

#include "sys/base/unique_fd.h"

#include <cstdint>
#include <string>

namespace nr::sys {

// Unlinks ticket `name` in `dir` only while that name still is the file
// behind `fd`, so a name that was removed and taken again in between is
// left alone. A failure leaves the file, which is harmless: the next waiter
// finds it unlocked and removes it.
void remove_ticket_if_same(int dir, const std::string& name, int fd) noexcept;

class HeldTurn {
public:
    HeldTurn(UniqueFd dir, UniqueFd ticket, std::uint64_t number);

    // Removes the ticket file; the lock itself goes with the last
    // descriptor of the ticket.
    ~HeldTurn();
    HeldTurn(HeldTurn&&) = default;
    HeldTurn& operator=(HeldTurn&&) = delete;
    HeldTurn(const HeldTurn&) = delete;
    HeldTurn& operator=(const HeldTurn&) = delete;

    [[nodiscard]] int dir() const { return dir_.get(); }
    [[nodiscard]] int ticket() const { return ticket_.get(); }
    [[nodiscard]] std::uint64_t number() const { return number_; }

private:
    UniqueFd dir_;
    UniqueFd ticket_;
    std::uint64_t number_ = 0;
};

} // namespace nr::sys
