#include "core/seccomp_rules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <map>
#include <string>

using namespace nr::core;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

namespace {

std::map<std::string, int> denied_of(const SeccompPolicy& policy)
{
    std::map<std::string, int> out;
    for (const auto& rule : policy.denied) {
        out[rule.name] = rule.errno_value;
    }
    return out;
}

AdapterProfile adapter(NetworkMode network, bool nested_userns)
{
    AdapterProfile a;
    a.name = "claude";
    a.executable = "/usr/bin/claude";
    a.network = network;
    a.nested_userns = nested_userns;
    return a;
}

} // namespace

TEST(TheSeccompPolicy, DeniesListeningAcceptingAndIoUringWithEperm)
{
    const auto policy = seccomp_policy_for(adapter(NetworkMode::Host, false));
    EXPECT_THAT(denied_of(policy),
                UnorderedElementsAre(Pair("listen", EPERM), Pair("accept", EPERM), Pair("accept4", EPERM),
                                     Pair("io_uring_setup", EPERM), Pair("io_uring_enter", EPERM),
                                     Pair("io_uring_register", EPERM)));
    EXPECT_EQ(policy.denied.size(), 6U) << "a syscall is listed twice";
}

TEST(TheSeccompPolicy, KeepsOutboundNetworkingAvailable)
{
    const auto denied = denied_of(seccomp_policy_for(adapter(NetworkMode::Host, false)));
    for (const char* allowed : {"socket", "connect", "sendto", "recvfrom", "read", "write", "execve"}) {
        EXPECT_FALSE(denied.contains(allowed)) << allowed;
    }
}

TEST(TheSeccompPolicy, KillsCallsThroughForeignAbis)
{
    EXPECT_TRUE(seccomp_policy_for(adapter(NetworkMode::Host, false)).kill_foreign_abis);
    EXPECT_TRUE(seccomp_policy_for(adapter(NetworkMode::Offline, true)).kill_foreign_abis);
}

TEST(TheSeccompPolicy, IsTheSameForEveryAdapterProfile)
{
    EXPECT_EQ(denied_of(seccomp_policy_for(adapter(NetworkMode::Offline, true))),
              denied_of(seccomp_policy_for(adapter(NetworkMode::Host, false))));
}
