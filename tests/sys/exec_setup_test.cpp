// SPDX-License-Identifier: Apache-2.0
#include "sys/base/exec_setup.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

using namespace nr::sys;

namespace {

bool is_open(int fd)
{
    return ::fcntl(fd, F_GETFD) != -1;
}

// Runs `body` in a child, so that closing descriptors does not touch the
// test runner's own (gtest's output, ctest's pipes); its exit status is
// the bitmask it returns.
int in_child(int (*body)())
{
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::_exit(body());
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Three descriptors above stderr, the middle one to keep; bit 0: stdio
// still open, bit 1: the kept one still open, bit 2: each other one closed.
int keep_the_middle_one()
{
    const int low = ::open("/dev/null", O_RDONLY);
    const int middle = ::open("/dev/null", O_RDONLY);
    const int high = ::open("/dev/null", O_RDONLY);
    close_fds_above_stderr_except(middle);
    return (is_open(0) && is_open(1) && is_open(2) ? 1 : 0) | (is_open(middle) ? 2 : 0) |
           (!is_open(low) && !is_open(high) ? 4 : 0);
}

// The claim shim's case: the kept one is the first above stderr.
int keep_the_first_above_stderr()
{
    const int first = ::dup2(1, 3);
    const int above = ::open("/dev/null", O_RDONLY);
    close_fds_above_stderr_except(first);
    return (is_open(2) ? 1 : 0) | (is_open(first) ? 2 : 0) | (!is_open(above) ? 4 : 0);
}

int keep_none()
{
    const int one = ::open("/dev/null", O_RDONLY);
    const int other = ::dup2(one, 200);
    close_fds_above_stderr_except(-1);
    return (is_open(2) ? 1 : 0) | (!is_open(one) && !is_open(other) ? 4 : 0);
}

} // namespace

TEST(ClosingDescriptorsBeforeAnExec, KeepsStdioAndTheOneAskedForAndClosesTheRest)
{
    EXPECT_EQ(in_child(keep_the_middle_one), 1 | 2 | 4);
}

TEST(ClosingDescriptorsBeforeAnExec, KeepsTheFirstDescriptorAboveStderrWhenThatIsTheOneAskedFor)
{
    EXPECT_EQ(in_child(keep_the_first_above_stderr), 1 | 2 | 4);
}

TEST(ClosingDescriptorsBeforeAnExecWithNoneToKeep, ClosesEveryOneAboveStderr)
{
    EXPECT_EQ(in_child(keep_none), 1 | 4);
}

TEST(AnExecVector, HoldsEachItemThenANullPointer)
{
    const std::vector<std::string> items{"/bin/true", "--flag", ""};
    const auto vector = exec_vector(items);
    ASSERT_EQ(vector.size(), 4U);
    EXPECT_STREQ(vector[0], "/bin/true");
    EXPECT_STREQ(vector[1], "--flag");
    EXPECT_STREQ(vector[2], "");
    EXPECT_EQ(vector[3], nullptr);
}
