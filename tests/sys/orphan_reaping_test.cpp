// SPDX-License-Identifier: Apache-2.0
// What bwrap leaves behind when it is killed early in its set-up, and the
// launcher's answer to it (sys/base/orphan_reaping.h), with the real bwrap.
//
// bwrap writes --json-status-fd before it lets its sandbox process go on; a
// full pipe holds it there, in the window the launcher's SIGKILL can hit.
// Each case runs in a process of its own (a stand-in for the launcher), so
// that the subreaper flag and any adopted child never reach the test binary.

#include "sys/base/orphan_reaping.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace {

constexpr const char* kRealBwrap = "/usr/bin/bwrap";

// What the stand-in saw, in its own words.
struct Seen {
    bool stranded = false; // bwrap had its sandbox process when killed
    bool adopted = false;  // that process became the stand-in's child
    bool survived_sigterm = false;
    bool alive_at_end = false; // after kill_adopted_orphans, when called
    std::string trouble;
};

pid_t first_child_of(pid_t pid)
{
    std::ifstream list("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    pid_t child = 0;
    list >> child;
    return child;
}

// Alive and not a zombie waiting to be reaped.
bool running(pid_t pid)
{
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

pid_t parent_of(pid_t pid)
{
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    std::istringstream rest(text.substr(text.rfind(')') + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    return ppid;
}

bool stays_running(pid_t pid, std::chrono::milliseconds for_how_long)
{
    const auto until = std::chrono::steady_clock::now() + for_how_long;
    while (std::chrono::steady_clock::now() < until) {
        if (!running(pid)) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

// A pipe whose buffer is full, with a blocking write end: whoever writes
// to it waits until the test ends.
std::array<int, 2> full_pipe()
{
    std::array<int, 2> fds{-1, -1};
    if (pipe2(fds.data(), O_NONBLOCK) != 0) {
        return fds;
    }
    const std::array<char, 4096> block{};
    while (write(fds[1], block.data(), block.size()) > 0) {
    }
    fcntl(fds[1], F_SETFL, 0);
    return fds;
}

// The stand-in launcher: starts bwrap, kills it once it has cloned its
// sandbox process, and reports what became of that process.
Seen strand_a_sandbox_process(bool adopt, bool reap)
{
    Seen seen;
    if (adopt) {
        nr::sys::adopt_orphaned_descendants();
    }
    const auto status = full_pipe();
    const pid_t bwrap = fork();
    if (bwrap == 0) {
        dup2(status[1], 3);
        execl(kRealBwrap, kRealBwrap, "--unshare-all", "--unshare-user", "--die-with-parent", "--json-status-fd", "3",
              "--ro-bind", "/", "/", "--", "/bin/true", static_cast<char*>(nullptr));
        _exit(127);
    }
    pid_t inner = 0;
    for (int i = 0; i < 500 && inner == 0; ++i) {
        inner = first_child_of(bwrap);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(bwrap, SIGKILL);
    while (waitpid(bwrap, nullptr, 0) < 0 && errno == EINTR) {
    }
    if (inner == 0) {
        seen.trouble = "bwrap never cloned its sandbox process";
        return seen;
    }
    seen.stranded = stays_running(inner, std::chrono::milliseconds(300));
    seen.adopted = parent_of(inner) == getpid();
    kill(inner, SIGTERM);
    seen.survived_sigterm = stays_running(inner, std::chrono::milliseconds(500));
    if (reap) {
        nr::sys::kill_adopted_orphans();
    }
    seen.alive_at_end = running(inner);
    kill(inner, SIGKILL); // the control's clean-up
    (void)waitpid(inner, nullptr, 0);
    return seen;
}

// Runs the stand-in in a process of its own and reads back what it saw.
Seen in_a_stand_in_launcher(bool adopt, bool reap)
{
    std::array<int, 2> answer{-1, -1};
    EXPECT_EQ(pipe2(answer.data(), O_CLOEXEC), 0);
    const pid_t stand_in = fork();
    if (stand_in == 0) {
        close(answer[0]);
        const auto seen = strand_a_sandbox_process(adopt, reap);
        std::string line;
        for (const bool flag : {seen.stranded, seen.adopted, seen.survived_sigterm, seen.alive_at_end}) {
            line.push_back(flag ? '1' : '0');
        }
        line += seen.trouble;
        (void)!write(answer[1], line.data(), line.size());
        _exit(0);
    }
    close(answer[1]);
    std::string line;
    std::array<char, 256> chunk{};
    ssize_t n = 0;
    while ((n = read(answer[0], chunk.data(), chunk.size())) > 0) {
        line.append(chunk.data(), static_cast<std::size_t>(n));
    }
    close(answer[0]);
    int status = 0;
    waitpid(stand_in, &status, 0);
    Seen seen;
    if (line.size() < 4) {
        seen.trouble = "the stand-in reported nothing: " + line;
        return seen;
    }
    seen.stranded = line[0] == '1';
    seen.adopted = line[1] == '1';
    seen.survived_sigterm = line[2] == '1';
    seen.alive_at_end = line[3] == '1';
    seen.trouble = line.substr(4);
    return seen;
}

} // namespace

TEST(ABwrapKilledBeforeItReleasesItsSandboxProcess, LeavesThatProcessRunningAndDeafToSigterm)
{
    const auto seen = in_a_stand_in_launcher(false, false);
    ASSERT_EQ(seen.trouble, "");
    EXPECT_TRUE(seen.stranded) << "--die-with-parent is not armed yet in this window";
    EXPECT_FALSE(seen.adopted) << "without the subreaper flag it goes to the service manager";
    EXPECT_TRUE(seen.survived_sigterm) << "a PID namespace's init without a handler ignores SIGTERM";
    EXPECT_TRUE(seen.alive_at_end);
}

TEST(ABwrapKilledBeforeItReleasesItsSandboxProcess, LeavesItToTheLauncherThatAdoptsAndKillsIt)
{
    const auto seen = in_a_stand_in_launcher(true, true);
    ASSERT_EQ(seen.trouble, "");
    EXPECT_TRUE(seen.stranded);
    EXPECT_TRUE(seen.adopted);
    EXPECT_FALSE(seen.alive_at_end);
}

// The supervisor's failure path before its child is reaped: bwrap still
// running, with a process of its own that ignores SIGTERM.
TEST(AnAdoptingProcess, KillsItsRunningChildAndThenWhatThatChildLeavesBehind)
{
    std::array<int, 2> answer{-1, -1};
    ASSERT_EQ(pipe2(answer.data(), O_CLOEXEC), 0);
    const pid_t stand_in = fork();
    if (stand_in == 0) {
        close(answer[0]);
        nr::sys::adopt_orphaned_descendants();
        std::array<int, 2> grandchild_pid{-1, -1};
        if (pipe(grandchild_pid.data()) != 0) {
            _exit(1);
        }
        const pid_t child = fork();
        if (child == 0) {
            const pid_t grandchild = fork();
            if (grandchild == 0) {
                (void)std::signal(SIGTERM, SIG_IGN);
                sleep(60);
                _exit(0);
            }
            (void)!write(grandchild_pid[1], &grandchild, sizeof grandchild);
            sleep(60);
            _exit(0);
        }
        pid_t grandchild = 0;
        (void)!read(grandchild_pid[0], &grandchild, sizeof grandchild);
        const bool before = grandchild > 0 && running(grandchild) && running(child);
        nr::sys::kill_adopted_orphans();
        const bool child_reaped = waitpid(child, nullptr, WNOHANG) < 0 && errno == ECHILD;
        const bool grandchild_gone = !running(grandchild);
        if (grandchild > 0) {
            kill(grandchild, SIGKILL); // the clean-up should the test fail
        }
        const std::string line{before ? '1' : '0', child_reaped ? '1' : '0', grandchild_gone ? '1' : '0'};
        (void)!write(answer[1], line.data(), line.size());
        _exit(0);
    }
    close(answer[1]);
    std::array<char, 3> line{};
    ASSERT_EQ(read(answer[0], line.data(), line.size()), 3);
    close(answer[0]);
    (void)waitpid(stand_in, nullptr, 0);
    EXPECT_EQ(line[0], '1') << "control: both were running first";
    EXPECT_EQ(line[1], '1') << "the child was killed and reaped";
    EXPECT_EQ(line[2], '1') << "the grandchild it left, adopted, was killed too";
}
