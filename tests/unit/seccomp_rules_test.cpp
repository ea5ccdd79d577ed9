#include "core/seccomp_rules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/ioctl.h>

#include <cerrno>
#include <map>
#include <ostream>
#include <set>
#include <string>

using namespace nr::core;
using ::testing::UnorderedElementsAre;

namespace nr::core {
// Readable failure messages for rule comparisons.
void PrintTo(const SyscallRule& rule, std::ostream* os)
{
    *os << rule.name << " -> errno " << rule.errno_value;
    if (rule.when) {
        *os << " when (arg" << rule.when->index << " & 0x" << std::hex << rule.when->mask << ") == 0x"
            << rule.when->value << std::dec;
    }
}
} // namespace nr::core

namespace {

// Unconditional rules by name; rules with an argument condition are left out.
std::map<std::string, int> denied_of(const SeccompPolicy& policy)
{
    std::map<std::string, int> out;
    for (const auto& rule : policy.denied) {
        if (!rule.when) {
            out[rule.name] = rule.errno_value;
        }
    }
    return out;
}

std::vector<SyscallRule> conditional_rules_of(const SeccompPolicy& policy)
{
    std::vector<SyscallRule> out;
    for (const auto& rule : policy.denied) {
        if (rule.when) {
            out.push_back(rule);
        }
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

const std::set<std::string> kPrivilegeSet{"keyctl",           "add_key",           "request_key",     "ptrace",
                                          "process_vm_readv", "process_vm_writev", "perf_event_open", "bpf",
                                          "userfaultfd",      "kexec_load",        "kexec_file_load", "init_module",
                                          "finit_module",     "delete_module"};

const std::set<std::string> kNamespaceAndMountSet{"mount",    "umount2",   "pivot_root", "unshare",
                                                  "setns",    "open_tree", "move_mount", "fsopen",
                                                  "fsconfig", "fsmount",   "fspick",     "mount_setattr"};

} // namespace

TEST(TheSeccompPolicy, DeniesListeningAcceptingAndIoUringWithEperm)
{
    const auto denied = denied_of(seccomp_policy_for(adapter(NetworkMode::Host, false)));
    for (const char* name : {"listen", "accept", "accept4", "io_uring_setup", "io_uring_enter", "io_uring_register"}) {
        ASSERT_TRUE(denied.contains(name)) << name;
        EXPECT_EQ(denied.at(name), EPERM) << name;
    }
}

TEST(TheSeccompPolicy, DeniesThePrivilegeSetWithEpermForEveryProfile)
{
    for (const bool nested : {false, true}) {
        const auto denied = denied_of(seccomp_policy_for(adapter(NetworkMode::Host, nested)));
        for (const auto& name : kPrivilegeSet) {
            ASSERT_TRUE(denied.contains(name)) << name << " nested_userns=" << nested;
            EXPECT_EQ(denied.at(name), EPERM) << name;
        }
    }
}

TEST(TheSeccompPolicy, DeniesNamespacesAndTheOldAndNewMountApiWithEperm)
{
    const auto denied = denied_of(seccomp_policy_for(adapter(NetworkMode::Host, false)));
    for (const auto& name : kNamespaceAndMountSet) {
        ASSERT_TRUE(denied.contains(name)) << name;
        EXPECT_EQ(denied.at(name), EPERM) << name;
    }
}

TEST(TheSeccompPolicy, AllowsNamespacesAndMountsOnlyToAProfileThatNestsItsOwnSandbox)
{
    const auto nested = denied_of(seccomp_policy_for(adapter(NetworkMode::Host, true)));
    for (const auto& name : kNamespaceAndMountSet) {
        EXPECT_FALSE(nested.contains(name)) << name << " would break a nested bwrap";
    }
    // Everything else stays exactly as for any other profile.
    auto plain = denied_of(seccomp_policy_for(adapter(NetworkMode::Host, false)));
    for (const auto& name : kNamespaceAndMountSet) {
        plain.erase(name);
    }
    EXPECT_EQ(nested, plain);
}

TEST(TheSeccompPolicy, MakesClone3LookUnimplementedSoLibcFallsBackToClone)
{
    for (const bool nested : {false, true}) {
        const auto denied = denied_of(seccomp_policy_for(adapter(NetworkMode::Offline, nested)));
        ASSERT_TRUE(denied.contains("clone3"));
        EXPECT_EQ(denied.at("clone3"), ENOSYS);
        EXPECT_FALSE(denied.contains("clone"));
    }
}

TEST(TheSeccompPolicy, RefusesTiocstiAndTioclinuxWhateverTheHighBitsOfTheRequestHold)
{
    for (const bool nested : {false, true}) {
        const auto rules = conditional_rules_of(seccomp_policy_for(adapter(NetworkMode::Host, nested)));
        EXPECT_THAT(rules,
                    UnorderedElementsAre(SyscallRule{"ioctl", EPERM, ArgumentMatch{1, 0xffffffffULL, TIOCSTI}},
                                         SyscallRule{"ioctl", EPERM, ArgumentMatch{1, 0xffffffffULL, TIOCLINUX}}));
    }
    // The kernel truncates the request to 32 bits, so a request with the
    // high bits set must still match the masked comparison.
    const std::uint64_t with_high_bits = TIOCSTI | (1ULL << 32U);
    EXPECT_EQ(with_high_bits & kLow32Bits, static_cast<std::uint64_t>(TIOCSTI));
}

TEST(TheSeccompPolicy, LeavesEveryOtherIoctlAlone)
{
    const auto policy = seccomp_policy_for(adapter(NetworkMode::Host, false));
    EXPECT_FALSE(denied_of(policy).contains("ioctl")) << "an unconditional ioctl rule would break every terminal";
}

TEST(TheSeccompPolicy, ListsNoRuleTwice)
{
    for (const bool nested : {false, true}) {
        const auto policy = seccomp_policy_for(adapter(NetworkMode::Host, nested));
        for (std::size_t i = 0; i < policy.denied.size(); ++i) {
            for (std::size_t j = i + 1; j < policy.denied.size(); ++j) {
                EXPECT_FALSE(policy.denied[i].name == policy.denied[j].name &&
                             policy.denied[i].when == policy.denied[j].when)
                    << policy.denied[i].name << " is listed twice";
            }
        }
    }
}

TEST(TheSeccompPolicy, DeniesExactlyTheDocumentedSets)
{
    // 6 listener/io_uring + 14 privilege + 12 namespace/mount + clone3 + 2 ioctl.
    EXPECT_EQ(seccomp_policy_for(adapter(NetworkMode::Host, false)).denied.size(), 35U);
    EXPECT_EQ(seccomp_policy_for(adapter(NetworkMode::Host, true)).denied.size(), 23U);
}

TEST(TheSeccompPolicy, KeepsOutboundNetworkingAndProcessCreationAvailable)
{
    const auto denied = denied_of(seccomp_policy_for(adapter(NetworkMode::Host, false)));
    for (const char* allowed :
         {"socket", "connect", "sendto", "recvfrom", "read", "write", "execve", "clone", "fork", "vfork", "wait4"}) {
        EXPECT_FALSE(denied.contains(allowed)) << allowed;
    }
}

TEST(TheSeccompPolicy, KillsCallsThroughForeignAbis)
{
    EXPECT_TRUE(seccomp_policy_for(adapter(NetworkMode::Host, false)).kill_foreign_abis);
    EXPECT_TRUE(seccomp_policy_for(adapter(NetworkMode::Offline, true)).kill_foreign_abis);
}

TEST(TheSeccompPolicy, DoesNotDependOnTheNetworkMode)
{
    for (const bool nested : {false, true}) {
        EXPECT_EQ(seccomp_policy_for(adapter(NetworkMode::Offline, nested)).denied,
                  seccomp_policy_for(adapter(NetworkMode::Host, nested)).denied);
    }
}
