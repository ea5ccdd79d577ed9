// SPDX-License-Identifier: Apache-2.0
// The host-auth ticket queue against a real filesystem and real flocks, with
// forked processes as the other launchers: no root, bus or systemd needed.

#include "sys/fs/admission_lock.h"

#include "core/launch/admission_queue.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

using namespace nr;
using core::ErrorKind;

namespace {

constexpr const char* kQueue = "native-runtime/.host-auth/g";

// Another launcher: a forked process that queues, reports what it sees on a
// pipe ("ahead N", "admitted") and holds its turn until told to go.
class OtherLauncher {
public:
    explicit OtherLauncher(const std::string& base)
    {
        int report[2];
        int go[2];
        if (pipe(report) != 0 || pipe(go) != 0) {
            std::abort();
        }
        pid_ = fork();
        if (pid_ == 0) {
            // A separate launcher shares no open file with this process: an
            // inherited copy of a ticket descriptor would keep its lock.
            for (int fd = 3; fd < 1024; ++fd) {
                if (fd != report[1] && fd != go[0]) {
                    close(fd);
                }
            }
            try {
                auto ticket = sys::AdmissionTicket::enqueue(base, kQueue);
                say(report[1], "queued");
                ticket.wait_turn([&](std::size_t ahead) { say(report[1], "ahead " + std::to_string(ahead)); });
                say(report[1], "admitted");
                char byte = 0;
                [[maybe_unused]] const auto got = read(go[0], &byte, 1);
            } catch (...) {
                say(report[1], "error");
            }
            _exit(0);
        }
        close(report[1]);
        close(go[0]);
        from_ = report[0];
        go_ = go[1];
    }
    OtherLauncher(const OtherLauncher&) = delete;
    OtherLauncher& operator=(const OtherLauncher&) = delete;
    OtherLauncher(OtherLauncher&&) = delete;
    OtherLauncher& operator=(OtherLauncher&&) = delete;
    ~OtherLauncher()
    {
        kill_now();
        close(from_);
        close(go_);
    }

    // The next line it reports (blocks until there is one).
    std::string next()
    {
        std::string line;
        char c = 0;
        while (read(from_, &c, 1) == 1 && c != '\n') {
            line += c;
        }
        return line;
    }
    // Whether a report is waiting right now (no waiting involved).
    bool has_reported()
    {
        pollfd p{from_, POLLIN, 0};
        return poll(&p, 1, 0) == 1;
    }
    void finish()
    {
        [[maybe_unused]] const auto sent = write(go_, "x", 1);
        reap();
    }
    void kill_now()
    {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            reap();
        }
    }

private:
    static void say(int fd, const std::string& text)
    {
        const auto line = text + "\n";
        [[maybe_unused]] const auto sent = write(fd, line.data(), line.size());
    }
    void reap()
    {
        int status = 0;
        (void)waitpid(pid_, &status, 0);
        pid_ = -1;
    }
    pid_t pid_ = -1;
    int from_ = -1;
    int go_ = -1;
};

class AnAdmissionQueue : public ::testing::Test {
protected:
    void SetUp() override
    {
        char dir[] = "/tmp/nr-admission-XXXXXX";
        ASSERT_NE(mkdtemp(dir), nullptr);
        base_ = dir;
        // A broken queue would block forever; end the test run instead.
        alarm(120);
    }
    void TearDown() override
    {
        alarm(0);
        std::error_code ignored; // a leftover temporary directory must not fail the test
        std::filesystem::remove_all(base_, ignored);
    }

    std::string queue() const { return base_ + "/" + kQueue; }
    std::vector<std::size_t> waits_of(sys::AdmissionTicket& ticket)
    {
        std::vector<std::size_t> reports;
        ticket.wait_turn([&](std::size_t ahead) { reports.push_back(ahead); });
        return reports;
    }

    std::string base_;
};

} // namespace

TEST_F(AnAdmissionQueue, AdmitsTheOnlyTicketAtOnceInAnOwnerOnlyDirectory)
{
    auto ticket = sys::AdmissionTicket::enqueue(base_, kQueue);
    EXPECT_TRUE(waits_of(ticket).empty());
    struct stat st {};
    ASSERT_EQ(stat(queue().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0700U);
    ASSERT_EQ(stat((queue() + "/" + core::ticket_name(ticket.number())).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600U);
}

TEST_F(AnAdmissionQueue, HoldsASecondLauncherUntilTheFirstEnds)
{
    auto first = std::make_unique<sys::AdmissionTicket>(sys::AdmissionTicket::enqueue(base_, kQueue));
    OtherLauncher second(base_);
    EXPECT_EQ(second.next(), "queued");
    EXPECT_EQ(second.next(), "ahead 1");
    // It cannot have been admitted while the first ticket is held.
    EXPECT_FALSE(second.has_reported());
    first.reset();
    EXPECT_EQ(second.next(), "ahead 0");
    EXPECT_EQ(second.next(), "admitted");
    second.finish();
}

TEST_F(AnAdmissionQueue, PassesOverALauncherKilledWhileWaiting)
{
    auto first = std::make_unique<sys::AdmissionTicket>(sys::AdmissionTicket::enqueue(base_, kQueue));
    OtherLauncher killed(base_);
    EXPECT_EQ(killed.next(), "queued");
    EXPECT_EQ(killed.next(), "ahead 1");
    OtherLauncher third(base_);
    EXPECT_EQ(third.next(), "queued");
    EXPECT_EQ(third.next(), "ahead 2");
    killed.kill_now();
    first.reset();
    EXPECT_EQ(third.next(), "ahead 0");
    EXPECT_EQ(third.next(), "admitted");
    third.finish();
}

TEST_F(AnAdmissionQueue, RemovesATicketLeftByALauncherThatDied)
{
    {
        OtherLauncher crashed(base_);
        EXPECT_EQ(crashed.next(), "queued");
        EXPECT_EQ(crashed.next(), "admitted");
        crashed.kill_now(); // its ticket file stays, unlocked
    }
    auto ticket = sys::AdmissionTicket::enqueue(base_, kQueue);
    EXPECT_TRUE(waits_of(ticket).empty());
    EXPECT_NE(access((queue() + "/" + core::ticket_name(1)).c_str(), F_OK), 0) << "the dead launcher's ticket is gone";
}

TEST_F(AnAdmissionQueue, ThatIsASymlinkIsRefused)
{
    const auto elsewhere = base_ + "/elsewhere";
    ASSERT_EQ(mkdir(elsewhere.c_str(), 0700), 0);
    ASSERT_EQ(mkdir((base_ + "/native-runtime").c_str(), 0700), 0);
    ASSERT_EQ(mkdir((base_ + "/native-runtime/.host-auth").c_str(), 0700), 0);
    ASSERT_EQ(symlink(elsewhere.c_str(), queue().c_str()), 0);
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, sys::AdmissionTicket::enqueue(base_, kQueue));
    EXPECT_EQ(rmdir(elsewhere.c_str()), 0) << "nothing was written at the target";
}

TEST_F(AnAdmissionQueue, ThatOthersMayEnterIsRefused)
{
    (void)sys::AdmissionTicket::enqueue(base_,
                                        kQueue); // control: accepted as created
    ASSERT_EQ(chmod(queue().c_str(), 0710), 0);
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, sys::AdmissionTicket::enqueue(base_, kQueue));
}

TEST_F(AnAdmissionQueue, WithATicketLinkedElsewhereIsRefused)
{
    auto first = sys::AdmissionTicket::enqueue(base_, kQueue);
    const auto name = queue() + "/" + core::ticket_name(first.number());
    ASSERT_EQ(link(name.c_str(), (base_ + "/copy").c_str()), 0);
    auto second = sys::AdmissionTicket::enqueue(base_, kQueue);
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, waits_of(second));
}
