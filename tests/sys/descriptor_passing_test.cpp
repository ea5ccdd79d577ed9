// SPDX-License-Identifier: Apache-2.0
// The hand-over of the seccomp listener from bwrap's side to the launcher
// (sys/base/fd_passing.h: send_descriptor, receive_descriptor) over a real
// unix socket pair.

#include "sys/base/fd_passing.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

using nr::sys::receive_descriptor;
using nr::sys::send_descriptor;
using nr::sys::UniqueFd;

namespace {

struct SocketPair {
    SocketPair()
    {
        int fds[2] = {-1, -1}; // NOLINT(*-avoid-c-arrays): socketpair ABI
        EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
        sender = UniqueFd(fds[0]);
        receiver = UniqueFd(fds[1]);
    }
    UniqueFd sender;
    UniqueFd receiver;
};

bool same_file(int a, int b)
{
    struct stat sa {};
    struct stat sb {};
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

} // namespace

TEST(ADescriptorSentOverAUnixSocket, ArrivesAsTheSameOpenFileAndCloseOnExec)
{
    SocketPair pair;
    const UniqueFd sent(open("/proc/self/exe", O_RDONLY | O_CLOEXEC));
    ASSERT_GE(sent.get(), 0);
    send_descriptor(pair.sender.get(), sent.get());
    const auto received = receive_descriptor(pair.receiver.get());
    ASSERT_GE(received.get(), 0);
    EXPECT_NE(received.get(), sent.get());
    EXPECT_TRUE(same_file(received.get(), sent.get()));
    EXPECT_EQ(fcntl(received.get(), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
}

TEST(AMessageWithoutADescriptor, IsReceivedAsNoDescriptor)
{
    SocketPair pair;
    ASSERT_EQ(write(pair.sender.get(), "F", 1), 1);
    EXPECT_LT(receive_descriptor(pair.receiver.get()).get(), 0);
}

TEST(APeerThatClosesWithoutSending, IsReceivedAsNoDescriptor)
{
    SocketPair pair;
    pair.sender = UniqueFd(-1);
    EXPECT_LT(receive_descriptor(pair.receiver.get()).get(), 0);
}
