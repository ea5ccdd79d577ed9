// SPDX-License-Identifier: Apache-2.0
#include "sys/base/journal_writer.h"

#include "core/journal/journal_native.h"
#include "sys/base/sealed_memfd.h"
#include "sys/base/unique_fd.h"

#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace nr::sys {

namespace {

constexpr char kJournalSocket[] = "/run/systemd/journal/socket"; // NOLINT(*-avoid-c-arrays): sockaddr_un

std::string& identifier()
{
    static std::string name = "native-runtime";
    return name;
}

sockaddr_un journal_address()
{
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    static_assert(sizeof(kJournalSocket) <= sizeof(address.sun_path));
    std::memcpy(address.sun_path, kJournalSocket, sizeof(kJournalSocket));
    return address;
}

bool send_with_retry(int socket, const msghdr& message)
{
    while (sendmsg(socket, &message, MSG_NOSIGNAL) < 0) {
        if (errno != EINTR) {
            return false;
        }
    }
    return true;
}

// A payload too large for one datagram goes as a sealed memfd: journald
// reads the record from it and accepts only a sealed one.
void send_as_memfd(int socket, sockaddr_un& address, const std::string& payload)
{
    const auto data = sealed_memfd("journal-record", payload);
    msghdr message{};
    message.msg_name = &address;
    message.msg_namelen = sizeof(address);
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {}; // NOLINT(*-avoid-c-arrays): cmsg ABI
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    cmsghdr* cmsg = CMSG_FIRSTHDR(&message);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    const int fd = data.get();
    std::memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
    (void)send_with_retry(socket, message);
}

int& kept_socket()
{
    static int fd = -1;
    return fd;
}

} // namespace

void keep_log_socket()
{
    if (kept_socket() < 0) {
        kept_socket() = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    }
}

void set_log_identifier(std::string_view name)
{
    identifier() = std::string(name);
}

namespace {

// Whether the record went out (it may still wait in journald's queue).
bool send_record(int socket, const core::LogRecord& record) noexcept
{
    try {
        auto payload = core::journal_native_payload(core::journal_fields(record, identifier()));
        auto address = journal_address();
        iovec iov{payload.data(), payload.size()};
        msghdr message{};
        message.msg_name = &address;
        message.msg_namelen = sizeof(address);
        message.msg_iov = &iov;
        message.msg_iovlen = 1;
        if (send_with_retry(socket, message)) {
            return true;
        }
        if (errno == EMSGSIZE || errno == ENOBUFS) {
            send_as_memfd(socket, address, payload);
            return true;
        }
    } catch (...) { // NOLINT(bugprone-empty-catch)
        // An invalid field name is a programming error the unit tests catch;
        // at run time the record is dropped rather than the request failed.
    }
    return false;
}

// Bytes this socket has sent that the receiver has not yet read: an AF_UNIX
// datagram stays charged to its sender until the receiver dequeues it.
int unread_by_journald(int socket)
{
    int pending = 0;
    return ioctl(socket, SIOCOUTQ, &pending) == 0 ? pending : 0;
}

} // namespace

void write_log(const core::LogRecord& record) noexcept
{
    const UniqueFd own(kept_socket() < 0 ? ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0) : -1);
    const int socket = kept_socket() < 0 ? own.get() : kept_socket();
    if (socket >= 0) {
        (void)send_record(socket, record);
    }
}

void write_last_log(const core::LogRecord& record, std::chrono::milliseconds at_most) noexcept
{
    const UniqueFd own(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!own.valid() || !send_record(own.get(), record)) {
        return;
    }
    // A deadline, not a count of steps: on a loaded machine each sleep
    // overshoots, and the bound is what the exit path may cost.
    const auto deadline = std::chrono::steady_clock::now() + at_most;
    const timespec step{0, std::chrono::nanoseconds(std::chrono::milliseconds(2)).count()};
    while (unread_by_journald(own.get()) > 0 && std::chrono::steady_clock::now() < deadline) {
        nanosleep(&step, nullptr);
    }
}

} // namespace nr::sys
