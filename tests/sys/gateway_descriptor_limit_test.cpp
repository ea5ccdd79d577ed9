// SPDX-License-Identifier: Apache-2.0
// A gateway of its own, started under a low RLIMIT_NOFILE, whose control
// socket is held open by idle root peers until accept4 fails with EMFILE
// while more peers wait in the queue. The control loop must pause there
// (the listener stays readable, so a loop that only waits for readability
// spins at full CPU) and answer again once descriptors are free.

#include "gateway_fixture.h"

using namespace nr::test::gateway;

namespace {

constexpr int kDescriptorLimit = 32;
constexpr int kPeers = 64;

// A peer that connects and says nothing: the gateway keeps its side open.
// Invalid once the listener's queue (16) stayed full for the whole wait. The
// wait is long because the CI's VMs and ASan build share two cores with this
// gateway: in 200 ms it once accepted nothing, only the queue filled.
UniqueFd idle_peer(const std::string& path)
{
    UniqueFd sock(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(4);
    while (std::chrono::steady_clock::now() < deadline) {
        if (connect(sock.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
            return sock;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return UniqueFd();
}

class AControlSocketAtTheDescriptorLimit : public OwnGatewayTest {
protected:
    AControlSocketAtTheDescriptorLimit() : OwnGatewayTest(kDescriptorLimit) {}
};

} // namespace

TEST_F(AControlSocketAtTheDescriptorLimit, PausesInsteadOfSpinningAndAnswersOnceDescriptorsAreFree)
{
    const auto path = own_.at("control");
    std::vector<UniqueFd> peers;
    for (int i = 0; i < kPeers; ++i) {
        auto peer = idle_peer(path);
        if (!peer.valid()) {
            break; // the queue is full: the gateway is at its limit
        }
        peers.push_back(std::move(peer));
    }
    ASSERT_GT(peers.size(), static_cast<std::size_t>(kDescriptorLimit)) << "control: the peers outnumber the limit";
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const long before = cpu_ticks();
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const long used = cpu_ticks() - before;
    // A spinning loop uses the whole second; paused, it wakes ten times.
    EXPECT_LT(used, sysconf(_SC_CLK_TCK) / 5) << own_.read("gateway.log");
    EXPECT_NE(own_.read("gateway.log").find("cannot accept for the control socket"), std::string::npos);
    peers.clear();
    const auto reply = control_at(path, nr::core::encode_gateway_revoke("never-registered.service"), -1);
    EXPECT_EQ(reply.rfind("error ", 0), 0U) << reply;
}
