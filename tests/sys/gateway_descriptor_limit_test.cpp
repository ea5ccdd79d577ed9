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

// The CPU time (user + system, in clock ticks) `pid` has used so far.
long cpu_ticks(pid_t pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));
    std::string field;
    // State is field 3; utime and stime are fields 14 and 15.
    for (int i = 3; i < 14; ++i) {
        fields >> field;
    }
    long user = 0;
    long system = 0;
    fields >> user >> system;
    return user + system;
}

// A peer that connects and says nothing: the gateway keeps its side open.
// Invalid once the listener's queue stayed full for a while.
UniqueFd idle_peer(const std::string& path)
{
    UniqueFd sock(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    for (int attempt = 0; attempt < 40; ++attempt) {
        if (connect(sock.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
            return sock;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return UniqueFd();
}

class AControlSocketAtTheDescriptorLimit : public GatewayTest {
protected:
    void SetUp() override
    {
        GatewayTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) {
            return;
        }
        const auto& shared = environment().tree();
        gateway_ =
            spawn({"prlimit", "--nofile=" + std::to_string(kDescriptorLimit), "--", NR_GATEWAY_BINARY, "--control",
                   tree_.at("control"), "--credentials", shared.at("creds"), "--upstream-ca", shared.at("ca.pem")},
                  tree_.at("gateway.log"));
        ASSERT_TRUE(wait_for_file(tree_.at("control"))) << tree_.read("gateway.log");
    }
    void TearDown() override
    {
        if (gateway_ > 0) {
            kill(gateway_, SIGTERM);
            waitpid(gateway_, nullptr, 0);
        }
    }

    nr::test::TempTree tree_;
    pid_t gateway_ = -1;
};

} // namespace

TEST_F(AControlSocketAtTheDescriptorLimit, PausesInsteadOfSpinningAndAnswersOnceDescriptorsAreFree)
{
    const auto path = tree_.at("control");
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
    const long before = cpu_ticks(gateway_);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const long used = cpu_ticks(gateway_) - before;
    // A spinning loop uses the whole second; paused, it wakes ten times.
    EXPECT_LT(used, sysconf(_SC_CLK_TCK) / 5) << tree_.read("gateway.log");
    EXPECT_NE(tree_.read("gateway.log").find("cannot accept for the control socket"), std::string::npos);
    peers.clear();
    const auto reply = control_at(path, nr::core::encode_gateway_revoke("never-registered.service"), -1);
    EXPECT_EQ(reply.rfind("error ", 0), 0U) << reply;
}
