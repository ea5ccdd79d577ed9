// SPDX-License-Identifier: Apache-2.0
// The launcher's watch on the worker's end of the session's stdout
// (sys/base/output_watch.h), against real pipes, sockets and child processes.

#include "sys/base/output_watch.h"

#include <gtest/gtest.h>

#include <array>
#include <csignal>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

using nr::sys::wait_child_or_reader_gone;

namespace {

// A child that holds no end of the test's pipes and sockets (a session
// holds only its own stdio) and exits with `status` after `usec`.
pid_t child_exiting(int status, useconds_t usec)
{
    const pid_t pid = fork();
    if (pid == 0) {
        syscall(SYS_close_range, 3U, ~0U, 0U);
        usleep(usec);
        _exit(status);
    }
    return pid;
}

// A child that would run for a minute unless something ends it.
pid_t sleeping_child()
{
    return child_exiting(0, 60000000);
}

std::array<int, 2> make_pipe()
{
    std::array<int, 2> fds{};
    EXPECT_EQ(pipe2(fds.data(), O_CLOEXEC), 0);
    return fds;
}

} // namespace

TEST(AChildWhoseOutputPipeLosesItsReader, IsKilledAndReportedAsReaderGone)
{
    auto out = make_pipe();
    const pid_t child = sleeping_child();
    close(out[0]); // the worker closes its reading end
    const auto end = wait_child_or_reader_gone(child, out[1]);
    EXPECT_TRUE(end.reader_gone);
    EXPECT_TRUE(WIFSIGNALED(end.wait_status));
    EXPECT_EQ(WTERMSIG(end.wait_status), SIGKILL);
    close(out[1]);
}

TEST(AChildWhoseOutputSocketPeerCloses, IsKilledAndReportedAsReaderGone)
{
    std::array<int, 2> pair{};
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair.data()), 0);
    const pid_t child = sleeping_child();
    close(pair[0]);
    const auto end = wait_child_or_reader_gone(child, pair[1]);
    EXPECT_TRUE(end.reader_gone);
    close(pair[1]);
}

TEST(AChildWhoseWorkerOnlyHalfClosesTheSocket, RunsToItsOwnEnd)
{
    // shutdown(SHUT_WR) by the worker is the end of the session's input,
    // not the disposal of its output.
    std::array<int, 2> pair{};
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair.data()), 0);
    const pid_t child = child_exiting(7, 300000);
    ASSERT_EQ(shutdown(pair[0], SHUT_WR), 0);
    const auto end = wait_child_or_reader_gone(child, pair[1]);
    EXPECT_FALSE(end.reader_gone);
    ASSERT_TRUE(WIFEXITED(end.wait_status));
    EXPECT_EQ(WEXITSTATUS(end.wait_status), 7);
    close(pair[0]);
    close(pair[1]);
}

TEST(AChildThatExitsWhileItsReaderStays, EndsWithItsOwnStatus)
{
    auto out = make_pipe();
    const pid_t child = child_exiting(3, 0);
    const auto end = wait_child_or_reader_gone(child, out[1]);
    EXPECT_FALSE(end.reader_gone);
    ASSERT_TRUE(WIFEXITED(end.wait_status));
    EXPECT_EQ(WEXITSTATUS(end.wait_status), 3);
    close(out[0]);
    close(out[1]);
}

TEST(AChildWhoseStdoutIsAFileOrClosed, IsNeverReportedAsReaderGone)
{
    const int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    for (const int fd : {devnull, 1000}) { // 1000: not open
        const pid_t child = child_exiting(0, 200000);
        const auto end = wait_child_or_reader_gone(child, fd);
        EXPECT_FALSE(end.reader_gone) << fd;
        EXPECT_TRUE(WIFEXITED(end.wait_status)) << fd;
    }
    close(devnull);
}
