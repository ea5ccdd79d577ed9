// SPDX-License-Identifier: Apache-2.0
#include "sys/base/fd_passing.h"

#include "core/base/error.h"

#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string>

namespace nr::sys {

namespace {

using core::ErrorKind;
using core::fail;

// One byte of data and room for one descriptor: the message both ends of
// the listener hand-over use. Not copyable: the header points into itself.
struct DescriptorMessage {
    explicit DescriptorMessage(char data) : byte(data)
    {
        header.msg_iov = &iov;
        header.msg_iovlen = 1;
        header.msg_control = control;
        header.msg_controllen = sizeof(control);
    }
    DescriptorMessage(const DescriptorMessage&) = delete;
    DescriptorMessage& operator=(const DescriptorMessage&) = delete;

    char byte;
    iovec iov{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {}; // NOLINT(*-avoid-c-arrays): cmsg ABI
    msghdr header{};
};

} // namespace

bool send_with_descriptor(int socket, std::string_view data, int fd, int flags)
{
    std::string body(data);
    iovec iov{body.data(), body.size()};
    alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int))> control{};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (fd >= 0) {
        msg.msg_control = control.data();
        msg.msg_controllen = control.size();
        cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
        cmsg->cmsg_level = SOL_SOCKET;
        cmsg->cmsg_type = SCM_RIGHTS;
        cmsg->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
    }
    ssize_t sent = 0;
    while ((sent = sendmsg(socket, &msg, flags | MSG_NOSIGNAL)) < 0) {
        if (errno != EINTR) {
            return false;
        }
    }
    if (static_cast<std::size_t>(sent) != body.size()) {
        errno = EMSGSIZE;
        return false;
    }
    return true;
}

void send_descriptor(int socket, int fd)
{
    if (!send_with_descriptor(socket, "F", fd, 0)) {
        fail(ErrorKind::LaunchFailed, std::string("sending a descriptor (SCM_RIGHTS): ") + std::strerror(errno));
    }
}

UniqueFd receive_descriptor(int socket)
{
    DescriptorMessage message(0);
    msghdr& msg = message.header;
    ssize_t n = 0;
    while ((n = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
    }
    const cmsghdr* cmsg = n > 0 ? CMSG_FIRSTHDR(&msg) : nullptr;
    if (cmsg == nullptr || cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS ||
        cmsg->cmsg_len != CMSG_LEN(sizeof(int))) {
        return UniqueFd(-1);
    }
    int fd = -1;
    std::memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
    return UniqueFd(fd);
}

} // namespace nr::sys
