// SPDX-License-Identifier: Apache-2.0
#include "sys/fs/admission_lock.h"

#include "core/base/error.h"
#include "core/launch/admission_queue.h"
#include "sys/fs/safe_dirs.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace nr::sys {

namespace {

using core::ErrorKind;
using core::fail;

struct stat stat_of(int fd, const std::string& shown)
{
    struct stat st {};
    if (fstat(fd, &st) != 0) {
        fail(ErrorKind::InvalidPath, "cannot stat " + shown + ": " + std::strerror(errno));
    }
    return st;
}

// Lock state must be the session user's alone: a file someone else owns,
// can read or has linked elsewhere could be used to forge or watch turns.
void check_private_file(int fd, const std::string& shown)
{
    const auto st = stat_of(fd, shown);
    if (!S_ISREG(st.st_mode)) {
        fail(ErrorKind::InvalidPath, shown + " is not a regular file");
    }
    if (st.st_uid != geteuid()) {
        fail(ErrorKind::InvalidPath,
             shown + " is owned by uid " + std::to_string(st.st_uid) + ", not the session user");
    }
    if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0 || st.st_nlink != 1) {
        fail(ErrorKind::InvalidPath, shown + " is not a private (0600, single-link) file");
    }
}

void lock_or_fail(int fd, int operation, const std::string& shown)
{
    while (flock(fd, operation) != 0) {
        if (errno != EINTR) {
            fail(ErrorKind::LaunchFailed, "cannot lock " + shown + ": " + std::strerror(errno));
        }
    }
}

std::vector<std::string> entry_names(int dir, const std::string& shown)
{
    const int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* stream = fd < 0 ? nullptr : fdopendir(fd);
    if (stream == nullptr) {
        const int err = errno;
        if (fd >= 0) {
            close(fd);
        }
        fail(ErrorKind::InvalidPath, "cannot list " + shown + ": " + std::strerror(err));
    }
    std::vector<std::string> names;
    while (const auto* entry = readdir(stream)) {
        names.emplace_back(entry->d_name);
    }
    closedir(stream);
    return names;
}

// An older ticket, or an invalid fd when it is gone.
UniqueFd open_ticket(int dir, const std::string& name, const std::string& shown)
{
    UniqueFd fd(openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!fd.valid()) {
        if (errno == ENOENT) {
            return fd;
        }
        fail(ErrorKind::InvalidPath, "cannot open " + shown + ": " + std::strerror(errno));
    }
    // Its owner or another waiter may unlink it between our open and stat:
    // a ticket with no name left is gone, not a hard link gone wrong.
    if (stat_of(fd.get(), shown).st_nlink == 0) {
        return UniqueFd();
    }
    check_private_file(fd.get(), shown);
    return fd;
}

} // namespace

AdmissionTicket::AdmissionTicket(UniqueFd dir, UniqueFd ticket, std::uint64_t number, std::string shown)
    : held_(std::move(dir), std::move(ticket), number), shown_(std::move(shown))
{
}

AdmissionTicket AdmissionTicket::enqueue(const std::string& base, const std::string& queue_dir)
{
    ensure_private_dirs(base, {queue_dir});
    const auto shown = base + "/" + queue_dir;
    auto dir = open_directory_no_symlinks(shown, geteuid());
    const auto st = stat_of(dir.get(), shown);
    if (st.st_uid != geteuid() || (st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
        fail(ErrorKind::InvalidPath, shown + " is not an owner-only (0700) directory of the session user");
    }

    // Taking a number and locking the new ticket happen under the queue
    // lock, so every ticket a waiter sees is either held by a live launcher
    // or released for good.
    const auto lock_shown = shown + "/" + std::string(core::kQueueLockName);
    UniqueFd queue_lock(openat(dir.get(), std::string(core::kQueueLockName).c_str(),
                               O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600));
    if (!queue_lock.valid()) {
        fail(ErrorKind::InvalidPath, "cannot open " + lock_shown + ": " + std::strerror(errno));
    }
    check_private_file(queue_lock.get(), lock_shown);
    lock_or_fail(queue_lock.get(), LOCK_EX, lock_shown);

    const auto number = core::next_ticket(core::tickets_in(entry_names(dir.get(), shown)));
    const auto name = core::ticket_name(number);
    UniqueFd ticket(openat(dir.get(), name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!ticket.valid()) {
        fail(ErrorKind::InvalidPath, "cannot create " + shown + "/" + name + ": " + std::strerror(errno));
    }
    check_private_file(ticket.get(), shown + "/" + name);
    lock_or_fail(ticket.get(), LOCK_EX | LOCK_NB, shown + "/" + name);
    return AdmissionTicket(std::move(dir), std::move(ticket), number, shown);
}

void AdmissionTicket::wait_turn(const std::function<void(std::size_t)>& report)
{
    bool waited = false;
    std::size_t reported = 0;
    for (;;) {
        // Older tickets whose lock is free belong to launchers that have
        // left (ended, stopped while waiting, crashed): drop them.
        std::vector<std::string> live;
        for (const auto number :
             core::tickets_ahead(core::tickets_in(entry_names(held_.dir(), shown_)), held_.number())) {
            const auto name = core::ticket_name(number);
            const auto fd = open_ticket(held_.dir(), name, shown_ + "/" + name);
            if (!fd.valid()) {
                continue;
            }
            if (flock(fd.get(), LOCK_SH | LOCK_NB) == 0) {
                remove_ticket_if_same(held_.dir(), name, fd.get());
                continue;
            }
            if (errno != EWOULDBLOCK && errno != EINTR) {
                fail(ErrorKind::LaunchFailed, "cannot test " + shown_ + "/" + name + ": " + std::strerror(errno));
            }
            live.push_back(name);
        }
        if (live.empty()) {
            break;
        }
        if (!waited || live.size() != reported) {
            report(live.size());
            reported = live.size();
            waited = true;
        }
        // Block on the oldest live ticket; when it is released, look again.
        const auto& oldest = live.front();
        const auto fd = open_ticket(held_.dir(), oldest, shown_ + "/" + oldest);
        if (fd.valid()) {
            lock_or_fail(fd.get(), LOCK_SH, shown_ + "/" + oldest);
            remove_ticket_if_same(held_.dir(), oldest, fd.get());
        }
    }
    if (waited) {
        report(0);
    }
}

} // namespace nr::sys
