// SPDX-License-Identifier: Apache-2.0
// The supervised seccomp filter from both ends in one test: a child loads
// it (sys/seccomp/seccomp_notify.h, libseccomp) and hands its listener over, as the
// launcher's child does; the parent answers with sys/base/notify_responder.h's
// raw ioctls, as native-runtime-supervise does.

#include "sys/base/notify_responder.h"

#include "core/base/error.h"
#include "sys/base/fd_passing.h"
#include "sys/seccomp/seccomp_notify.h"

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <optional>
#include <string>
#include <vector>

using nr::core::SupervisedCall;
using nr::sys::NotifyResponder;
using nr::sys::UniqueFd;

namespace {

struct Supervised {
    pid_t child = -1;
    UniqueFd listener;
};

// A child under a filter that notifies on listen(); it calls listen() on
// an unbound TCP socket and exits with the errno it got (0: it ran).
Supervised child_calling_listen(const std::vector<SupervisedCall>& filtered)
{
    std::array<int, 2> channel{-1, -1};
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel.data()), 0);
    const pid_t child = fork();
    if (child == 0) {
        close(channel[0]);
        try {
            // The unit gives the launcher NoNewPrivileges; here the child sets it.
            prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
            auto listener = nr::sys::load_notify_filter(filtered);
            nr::sys::send_descriptor(channel[1], listener.get());
        } catch (...) {
            _exit(250);
        }
        const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        _exit(listen(s, 1) == 0 ? 0 : errno);
    }
    close(channel[1]);
    Supervised out{child, nr::sys::receive_descriptor(channel[0])};
    close(channel[0]);
    return out;
}

int exit_code(pid_t child)
{
    int status = 0;
    EXPECT_EQ(waitpid(child, &status, 0), child);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool readable(int fd)
{
    pollfd p{fd, POLLIN, 0};
    return poll(&p, 1, 10000) == 1 && (p.revents & POLLIN) != 0;
}

} // namespace

TEST(ASupervisedCall, IsRefusedWithItsRulesErrnoAndReportedWithTheCallersPid)
{
    const auto calls = nr::sys::supervised_calls({{"listen", EACCES, std::nullopt}});
    auto session = child_calling_listen(calls);
    ASSERT_TRUE(session.listener.valid());
    NotifyResponder responder(session.listener.get(), calls);
    ASSERT_TRUE(readable(session.listener.get()));
    const auto answered = responder.answer_one();
    ASSERT_TRUE(answered.has_value());
    EXPECT_EQ(answered->syscall, "listen");
    EXPECT_EQ(answered->errno_value, EACCES);
    EXPECT_EQ(answered->pid, session.child);
    EXPECT_EQ(exit_code(session.child), EACCES) << "the call returned the rule's errno, it did not run";
}

TEST(ACallTheResponderWasNotToldAbout, IsRefusedWithEnosysUnderItsNumber)
{
    const auto calls = nr::sys::supervised_calls({{"listen", EPERM, std::nullopt}});
    auto session = child_calling_listen(calls);
    ASSERT_TRUE(session.listener.valid());
    NotifyResponder responder(session.listener.get(), {});
    ASSERT_TRUE(readable(session.listener.get()));
    const auto answered = responder.answer_one();
    ASSERT_TRUE(answered.has_value());
    EXPECT_EQ(answered->syscall, "syscall " + std::to_string(calls.front().number));
    EXPECT_EQ(exit_code(session.child), ENOSYS);
}

TEST(ASupervisedCallWhoseCallerWasKilled, IsNotAnswered)
{
    const auto calls = nr::sys::supervised_calls({{"listen", EPERM, std::nullopt}});
    auto session = child_calling_listen(calls);
    ASSERT_TRUE(session.listener.valid());
    NotifyResponder responder(session.listener.get(), calls);
    ASSERT_TRUE(readable(session.listener.get()));
    kill(session.child, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(session.child, &status, 0), session.child);
    EXPECT_FALSE(responder.answer_one().has_value());
}

TEST(ARuleWithAnArgumentMatchOrAnUnknownName, CannotBeSupervised)
{
    EXPECT_THROW(nr::sys::supervised_calls({{"listen", EPERM, nr::core::ArgumentMatch{1, 1, 1}}}), nr::core::Error);
    EXPECT_THROW(nr::sys::supervised_calls({{"no_such_call", EPERM, std::nullopt}}), nr::core::Error);
}
