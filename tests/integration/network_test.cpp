// SPDX-License-Identifier: Apache-2.0
// Network reach of a session. The harness gives the whole private systemd a
// network namespace of its own, so every address below lives on this
// namespace's loopback device, the cloud metadata address included: the
// probes cannot reach anything beyond this machine whatever they do.

#include "fixture.h"
#include "listeners.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <cstddef>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <array>
#include <atomic>
#include <thread>
#include <unistd.h>

using namespace nr::itest;

namespace {

// Echoes datagrams until destroyed: a stand-in for a DNS resolver.
class UdpEcho {
public:
    explicit UdpEcho(const char* address)
    {
        fd_ = bound_ipv4_socket(SOCK_DGRAM, address, 0, port_);
        echo_ = std::thread([this] {
            std::array<char, 64> buffer{};
            sockaddr_in peer{};
            socklen_t peer_len = sizeof peer;
            for (;;) {
                const auto n =
                    recvfrom(fd_, buffer.data(), buffer.size(), 0, reinterpret_cast<sockaddr*>(&peer), &peer_len);
                if (n <= 0 || stop_) {
                    return;
                }
                (void)sendto(fd_, buffer.data(), static_cast<std::size_t>(n), 0, reinterpret_cast<sockaddr*>(&peer),
                             peer_len);
            }
        });
    }
    UdpEcho(const UdpEcho&) = delete;
    UdpEcho& operator=(const UdpEcho&) = delete;
    UdpEcho(UdpEcho&&) = delete;
    UdpEcho& operator=(UdpEcho&&) = delete;
    ~UdpEcho()
    {
        stop_ = true;
        shutdown(fd_, SHUT_RDWR);
        echo_.join();
        close(fd_);
    }

    [[nodiscard]] const std::string& port() const { return port_; }

private:
    int fd_ = -1;
    std::string port_;
    std::atomic<bool> stop_{false};
    std::thread echo_;
};

constexpr const char* kMetadata = "169.254.169.254";

class ASessionOnTheHostNetwork : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        // Idempotent: "File exists" on a second suite is fine.
        (void)run({"ip", "addr", "add", std::string(kMetadata) + "/32", "dev", "lo"});
    }
};

} // namespace

TEST_F(ASessionOnTheHostNetwork, ReachesTheAllowedGatewayAddress)
{
    const Listener gateway("127.0.0.2");
    EXPECT_EQ(probe_inside("alice", "net-gw", {"connect", "127.0.0.2", gateway.port()})["connect"], "ok");
}

TEST_F(ASessionOnTheHostNetwork, CannotReachTheRestOfLoopback)
{
    const Listener local("127.0.0.1");
    EXPECT_EQ(probe_outside(kWorker, {"connect", "127.0.0.1", local.port()})["connect"], "ok") << "positive control";
    EXPECT_TRUE(refused(probe_inside("alice", "net-lo", {"connect", "127.0.0.1", local.port()})["connect"]));
}

TEST_F(ASessionOnTheHostNetwork, CannotReachTheCloudMetadataAddress)
{
    const Listener metadata(kMetadata);
    EXPECT_EQ(probe_outside(kWorker, {"connect", kMetadata, metadata.port()})["connect"], "ok") << "positive control";
    EXPECT_TRUE(refused(probe_inside("alice", "net-md", {"connect", kMetadata, metadata.port()})["connect"]));
}

TEST(AnOfflineSession, CannotReachEvenTheAllowedGatewayAddress)
{
    const Listener gateway("127.0.0.2");
    EXPECT_EQ(probe_inside("alice", "net-gw2", {"connect", "127.0.0.2", gateway.port()})["connect"], "ok")
        << "positive control: a host-network session reaches it";
    const auto outcome = run(as_user(
        kWorker, ctl_run("alice", "net-off", "probe-offline", {"nr-probe", "connect", "127.0.0.2", gateway.port()})));
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_TRUE(refused(parse_lines(outcome.out)["connect"]));
}

namespace {

// A listening abstract unix socket "@name" in the harness's network
// namespace, which host-network sessions share.
class AbstractListener {
public:
    explicit AbstractListener(const std::string& name)
    {
        fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        name.copy(addr.sun_path + 1, sizeof addr.sun_path - 2);
        const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
        if (bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 || listen(fd_, 16) != 0) {
            throw std::runtime_error("cannot listen on @" + name);
        }
    }
    AbstractListener(const AbstractListener&) = delete;
    AbstractListener& operator=(const AbstractListener&) = delete;
    AbstractListener(AbstractListener&&) = delete;
    AbstractListener& operator=(AbstractListener&&) = delete;
    ~AbstractListener() { close(fd_); }

private:
    int fd_ = -1;
};

} // namespace

TEST_F(ASessionOnTheHostNetwork, CannotConnectToTheHostsAbstractUnixSockets)
{
    const std::string name = "nr-abstract-canary-" + std::to_string(getpid());
    const AbstractListener listener(name);
    EXPECT_EQ(probe_outside(kWorker, {"connect-abstract", name})["connect_abstract"], "ok") << "positive control";
    EXPECT_EQ(probe_inside("alice", "abstract", {"connect-abstract", name})["connect_abstract"], "EPERM");
}

TEST_F(ASessionOnTheHostNetwork, ExchangesUdpWithTheAllowedResolverAddressOnly)
{
    const UdpEcho allowed("127.0.0.2");
    const UdpEcho denied("127.0.0.1");
    EXPECT_EQ(probe_outside(kWorker, {"udp", "127.0.0.1", denied.port()})["udp"], "ok") << "positive control";
    EXPECT_EQ(probe_inside("alice", "udp-ok", {"udp", "127.0.0.2", allowed.port()})["udp"], "ok");
    EXPECT_TRUE(refused(probe_inside("alice", "udp-no", {"udp", "127.0.0.1", denied.port()})["udp"]));
}
