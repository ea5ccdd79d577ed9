// SPDX-License-Identifier: Apache-2.0
// The helper's side of the egress gateway's control socket
// (sys/net/gateway_control.h) against a stand-in gateway: a SOCK_SEQPACKET
// listener in a temporary directory, served by a thread that records what
// arrived and answers one datagram.

#include "sys/net/gateway_control.h"

#include "core/base/error.h"
#include "temp_tree.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <string>
#include <thread>

namespace {

using namespace std::chrono_literals;
using nr::sys::UniqueFd;
using ::testing::HasSubstr;

struct Received {
    std::string message;
    bool had_descriptor = false;
    bool descriptor_is_a_socket = false;
};

class StandInGateway {
public:
    explicit StandInGateway(const std::string& path)
    {
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
        listener_.reset(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): sockaddr ABI
        if (bind(listener_.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0 ||
            listen(listener_.get(), 1) != 0) {
            throw std::runtime_error("stand-in gateway: bind/listen failed");
        }
    }

    // Accepts one connection, reads one datagram, answers `answer`
    // (nothing at all when it is empty: the connection is just closed).
    Received serve_once(const std::string& answer)
    {
        Received received;
        const UniqueFd connection(accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
        std::array<char, 4096> buffer{};
        iovec iov{buffer.data(), buffer.size()};
        std::array<char, CMSG_SPACE(sizeof(int))> control{};
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.data();
        msg.msg_controllen = control.size();
        const auto length = recvmsg(connection.get(), &msg, MSG_CMSG_CLOEXEC);
        if (length > 0) {
            received.message.assign(buffer.data(), static_cast<std::size_t>(length));
        }
        if (auto* cmsg = CMSG_FIRSTHDR(&msg); cmsg != nullptr && cmsg->cmsg_type == SCM_RIGHTS) {
            int fd = -1;
            std::memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
            const UniqueFd passed(fd);
            struct stat st {};
            received.had_descriptor = true;
            received.descriptor_is_a_socket = fstat(passed.get(), &st) == 0 && S_ISSOCK(st.st_mode);
        }
        if (!answer.empty()) {
            (void)send(connection.get(), answer.data(), answer.size(), MSG_NOSIGNAL);
        }
        return received;
    }

private:
    UniqueFd listener_;
};

} // namespace

TEST(AGatewayExchange, SendsTheMessageWithTheDescriptorAndReturnsTheAnswer)
{
    const nr::test::TempTree tree;
    const auto path = tree.at("control");
    StandInGateway gateway(path);
    Received received;
    std::thread serving([&] { received = gateway.serve_once("ok\n"); });
    std::array<int, 2> pair{};
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair.data()), 0);
    const UniqueFd a(pair[0]);
    const UniqueFd b(pair[1]);
    const auto answer = nr::sys::gateway_exchange(path, "register\nunit u\n", a.get(), 5s);
    serving.join();
    EXPECT_EQ(answer, "ok\n");
    EXPECT_EQ(received.message, "register\nunit u\n");
    EXPECT_TRUE(received.had_descriptor);
    EXPECT_TRUE(received.descriptor_is_a_socket);
}

TEST(AGatewayExchangeWithoutADescriptor, SendsNone)
{
    const nr::test::TempTree tree;
    const auto path = tree.at("control");
    StandInGateway gateway(path);
    Received received;
    std::thread serving([&] { received = gateway.serve_once("error no such unit\n"); });
    const auto answer = nr::sys::gateway_exchange(path, "revoke\nunit u\n", -1, 5s);
    serving.join();
    EXPECT_EQ(answer, "error no such unit\n");
    EXPECT_FALSE(received.had_descriptor);
}

TEST(AMissingControlSocket, SaysTheGatewayIsNotInstalledOrNotStarted)
{
    const nr::test::TempTree tree;
    try {
        (void)nr::sys::gateway_exchange(tree.at("absent"), "revoke\n", -1, 1s);
        FAIL() << "connected to nothing";
    } catch (const nr::core::Error& e) {
        EXPECT_EQ(e.kind(), nr::core::ErrorKind::LaunchFailed);
        EXPECT_THAT(e.what(), HasSubstr("not installed or not started"));
    }
}

TEST(AGatewayThatClosesWithoutAnswering, GivesAnEmptyAnswer)
{
    const nr::test::TempTree tree;
    const auto path = tree.at("control");
    StandInGateway gateway(path);
    std::thread serving([&] { (void)gateway.serve_once(""); });
    const auto answer = nr::sys::gateway_exchange(path, "revoke\n", -1, 5s);
    serving.join();
    EXPECT_EQ(answer, ""); // which core::check_gateway_answer refuses
}
