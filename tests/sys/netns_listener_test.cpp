// SPDX-License-Identifier: Apache-2.0
// The gateway session's network namespace (sys/net/netns_listener.h), made by a
// child that is what a session's launcher is: `nobody`, no_new_privs,
// dumpable (as systemd's exec leaves it). The parent, root on the host's
// network, stands for the helper and the gateway: it receives the listener
// and accepts on it.

#include "sys/base/fd_passing.h"
#include "sys/net/netns_listener.h"
#include "sys/seccomp/seccomp_notify.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string>

namespace {

using nr::sys::UniqueFd;

constexpr std::uint16_t kPort = 18080;
using nr::test::kNobody;

struct ChildReport {
    int step_errno = 0;      // 0: namespace and listener made
    int inside_connect = -1; // errno of connect(127.0.0.1:kPort) inside, 0 = connected
    int host_connect = -1;   // errno of connect to the parent's listener on the host's 127.0.0.1
};

int connect_errno(std::uint16_t port)
{
    const UniqueFd sock(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): sockaddr ABI
    return connect(sock.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0 ? 0 : errno;
}

[[noreturn]] void report_and_exit(int channel, const ChildReport& report, int status)
{
    if (write(channel, &report, sizeof(report)) != static_cast<ssize_t>(sizeof(report))) {
        _exit(2);
    }
    _exit(status);
}

// The child's side: the launcher's step, then the two connects once the
// parent says where its host listener is.
[[noreturn]] void run_child(int channel)
{
    ChildReport report;
    if (setresgid(kNobody, kNobody, kNobody) != 0 || setresuid(kNobody, kNobody, kNobody) != 0 ||
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0) {
        report.step_errno = errno;
        report_and_exit(channel, report, 1);
    }
    try {
        // The launcher's order: the namespace made while still dumpable,
        // joined once non-dumpable (as while it holds the spec).
        const auto network = nr::sys::make_private_network();
        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
            report.step_errno = errno;
            report_and_exit(channel, report, 1);
        }
        nr::sys::join_private_network(network);
        auto listener = nr::sys::listen_on_loopback(kPort);
        nr::sys::send_descriptor(channel, listener.get());
        // The launcher keeps no copy of the listener.
    } catch (const std::exception&) {
        report.step_errno = errno == 0 ? EIO : errno;
        report_and_exit(channel, report, 1);
    }
    std::uint16_t host_port = 0;
    if (read(channel, &host_port, sizeof(host_port)) != sizeof(host_port)) {
        _exit(1);
    }
    report.inside_connect = connect_errno(kPort);
    report.host_connect = connect_errno(host_port);
    report_and_exit(channel, report, 0);
}

ino_t net_namespace_of(const std::string& pid)
{
    struct stat st {};
    return stat(("/proc/" + pid + "/ns/net").c_str(), &st) == 0 ? st.st_ino : 0;
}

} // namespace

TEST(AGatewayListener, IsMadeInTheSessionsOwnNamespaceAndAcceptsOnlyFromThere)
{
    if (geteuid() != 0) {
        GTEST_SKIP() << "dropping to nobody needs root";
    }
    // The control: a listener on the host's loopback, which the session's
    // namespace must not reach.
    const UniqueFd host_listener(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in host_address{};
    host_address.sin_family = AF_INET;
    host_address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(host_address);
    // NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): sockaddr ABI
    ASSERT_EQ(bind(host_listener.get(), reinterpret_cast<sockaddr*>(&host_address), sizeof(host_address)), 0);
    ASSERT_EQ(listen(host_listener.get(), 4), 0);
    ASSERT_EQ(getsockname(host_listener.get(), reinterpret_cast<sockaddr*>(&host_address), &length), 0);
    // NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)
    ASSERT_EQ(connect_errno(ntohs(host_address.sin_port)), 0) << "the control listener is reachable on the host";

    std::array<int, 2> pair{};
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair.data()), 0);
    const UniqueFd parent_end(pair[0]);
    UniqueFd child_end(pair[1]);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        run_child(child_end.get());
    }
    child_end.reset();

    const auto listener = nr::sys::receive_descriptor(parent_end.get());
    ASSERT_TRUE(listener.valid()) << "the child made no listener";
    EXPECT_NE(net_namespace_of(std::to_string(child)), net_namespace_of("self")) << "another network namespace";

    int accepting = 0;
    socklen_t size = sizeof(accepting);
    ASSERT_EQ(getsockopt(listener.get(), SOL_SOCKET, SO_ACCEPTCONN, &accepting, &size), 0);
    EXPECT_EQ(accepting, 1) << "the passed socket is listening";
    sockaddr_in bound{};
    length = sizeof(bound);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): sockaddr ABI
    ASSERT_EQ(getsockname(listener.get(), reinterpret_cast<sockaddr*>(&bound), &length), 0);
    EXPECT_EQ(ntohl(bound.sin_addr.s_addr), INADDR_LOOPBACK);
    EXPECT_EQ(ntohs(bound.sin_port), kPort);

    const auto host_port = ntohs(host_address.sin_port);
    ASSERT_EQ(write(parent_end.get(), &host_port, sizeof(host_port)), static_cast<ssize_t>(sizeof(host_port)));
    pollfd ready{listener.get(), POLLIN, 0};
    ASSERT_EQ(poll(&ready, 1, 5000), 1) << "no connection arrived from inside";
    const UniqueFd accepted(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    EXPECT_TRUE(accepted.valid()) << "the parent accepts what the child's namespace sent";

    ChildReport report;
    ASSERT_EQ(read(parent_end.get(), &report, sizeof(report)), static_cast<ssize_t>(sizeof(report)));
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_EQ(report.step_errno, 0) << std::strerror(report.step_errno);
    EXPECT_EQ(report.inside_connect, 0) << std::strerror(report.inside_connect);
    EXPECT_EQ(report.host_connect, ECONNREFUSED)
        << "the host's loopback is another namespace's: " << std::strerror(report.host_connect);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
