// SPDX-License-Identifier: Apache-2.0
#include "sys/base/fd_passing.h"

#include "core/base/error.h"

#include <sys/socket.h>

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

void send_descriptor(int socket, int fd)
{
    DescriptorMessage message('F');
    msghdr& msg = message.header;
    cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
    while (sendmsg(socket, &msg, MSG_NOSIGNAL) < 0) {
        if (errno != EINTR) {
            fail(ErrorKind::LaunchFailed, std::string("sending a descriptor (SCM_RIGHTS): ") + std::strerror(errno));
        }
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
