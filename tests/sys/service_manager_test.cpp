// SPDX-License-Identifier: Apache-2.0
// The process's own service manager without the bus (sys/service/listen_fds.h,
// sys/service/fd_store.h, sys/service/unit_of_pid.h), in the cases a test can set up
// without being started by systemd.

#include "sys/service/fd_store.h"
#include "sys/service/listen_fds.h"
#include "sys/service/unit_of_pid.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <string>

namespace {

// Runs `body` in a child, whose descriptors and environment it may change,
// and returns the child's exit status (0: every check passed).
template <typename Body> int in_child(Body body)
{
    const pid_t child = fork();
    if (child == 0) {
        _exit(body());
    }
    int status = -1;
    EXPECT_EQ(waitpid(child, &status, 0), child);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

} // namespace

TEST(TakingTheListenFds, GivesNothingWhenTheManagerPassedNone)
{
    EXPECT_EQ(in_child([] {
                  unsetenv("LISTEN_PID");
                  unsetenv("LISTEN_FDS");
                  unsetenv("LISTEN_FDNAMES");
                  return nr::sys::take_listen_fds().empty() ? 0 : 1;
              }),
              0);
}

TEST(TakingTheListenFds, TakesEachDescriptorWithItsNameAndUnsetsTheVariables)
{
    EXPECT_EQ(in_child([] {
                  std::array<int, 2> pipe_ends{};
                  if (pipe(pipe_ends.data()) != 0 || dup2(pipe_ends[0], 3) != 3 || dup2(pipe_ends[1], 4) != 4) {
                      return 1;
                  }
                  const auto pid = std::to_string(getpid());
                  setenv("LISTEN_PID", pid.c_str(), 1);
                  setenv("LISTEN_FDS", "2", 1);
                  setenv("LISTEN_FDNAMES", "control:session-7", 1);
                  const auto passed = nr::sys::take_listen_fds();
                  if (passed.size() != 2 || passed[0].fd.get() != 3 || passed[0].name != "control" ||
                      passed[1].fd.get() != 4 || passed[1].name != "session-7") {
                      return 2;
                  }
                  return std::getenv("LISTEN_FDS") == nullptr && std::getenv("LISTEN_FDNAMES") == nullptr ? 0 : 3;
              }),
              0);
}

TEST(StoringDescriptors, IsRefusedWithoutANotifySocket)
{
    EXPECT_EQ(in_child([] {
                  unsetenv("NOTIFY_SOCKET");
                  const std::array<int, 1> fds{0};
                  return nr::sys::store_fds("session-1", fds) ? 1 : 0;
              }),
              0);
}

TEST(TheUnitOfAPid, IsEmptyForAProcessThatIsGone)
{
    const pid_t child = fork();
    if (child == 0) {
        _exit(0);
    }
    ASSERT_EQ(waitpid(child, nullptr, 0), child);
    EXPECT_EQ(nr::sys::unit_of_pid(child), "");
}
