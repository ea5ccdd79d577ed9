// SPDX-License-Identifier: Apache-2.0
#include "sys/base/admission_turn.h"

#include "core/launch/admission_queue.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nr::sys {

void remove_ticket_if_same(int dir, const std::string& name, int fd) noexcept
{
    struct stat by_name {};
    struct stat by_fd {};
    if (fstatat(dir, name.c_str(), &by_name, AT_SYMLINK_NOFOLLOW) != 0 || fstat(fd, &by_fd) != 0) {
        return; // already removed by its owner or another waiter
    }
    if (by_name.st_dev == by_fd.st_dev && by_name.st_ino == by_fd.st_ino) {
        (void)unlinkat(dir, name.c_str(), 0);
    }
}

HeldTurn::HeldTurn(UniqueFd dir, UniqueFd ticket, std::uint64_t number)
    : dir_(std::move(dir)), ticket_(std::move(ticket)), number_(number)
{
}

HeldTurn::~HeldTurn()
{
    if (ticket_.valid() && dir_.valid()) {
        try {
            remove_ticket_if_same(dir_.get(), core::ticket_name(number_), ticket_.get());
        } catch (...) { // NOLINT(bugprone-empty-catch): the name could not be formed; the file stays, harmlessly
        }
    }
}

} // namespace nr::sys
