// SPDX-License-Identifier: Apache-2.0
#include "core/plan/seccomp_rules.h"

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
        std::vector<SyscallRule> ioctl_rules;
        for (const auto& rule : rules) {
            if (rule.name == "ioctl") {
                ioctl_rules.push_back(rule);
            }
        }
        EXPECT_THAT(ioctl_rules,
                    UnorderedElementsAre(SyscallRule{"ioctl", EPERM, ArgumentMatch{1, 0xffffffffULL, TIOCSTI}},
                                         SyscallRule{"ioctl", EPERM, ArgumentMatch{1, 0xffffffffULL, TIOCLINUX}}));
        const auto policy = seccomp_policy_for(adapter(NetworkMode::Host, nested));
        EXPECT_EQ(denial_for(policy, "ioctl", {0, TIOCSTI | (0xdeadULL << 32U)}), EPERM);
        EXPECT_EQ(denial_for(policy, "ioctl", {0, TIOCLINUX}), EPERM);
        EXPECT_EQ(denial_for(policy, "ioctl", {0, TIOCGWINSZ}), std::nullopt);
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
    // 6 listener/io_uring + 14 privilege + 5 kernel log/clock + 12
    // namespace/mount + clone3 + 2 ioctl + 32 personality comparisons.
    EXPECT_EQ(seccomp_policy_for(adapter(NetworkMode::Host, false)).denied.size(), 72U);
    EXPECT_EQ(seccomp_policy_for(adapter(NetworkMode::Host, true)).denied.size(), 60U);
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

TEST(TheSeccompPolicy, DeniesTheKernelLogAndEveryClockSettingCallWithEpermForEveryProfile)
{
    // What ProtectKernelLogs= and ProtectClock= refused before they left the unit.
    for (const bool nested : {false, true}) {
        const auto denied = denied_of(seccomp_policy_for(adapter(NetworkMode::Host, nested)));
        for (const char* name : {"syslog", "adjtimex", "clock_adjtime", "clock_settime", "settimeofday"}) {
            ASSERT_TRUE(denied.contains(name)) << name;
            EXPECT_EQ(denied.at(name), EPERM) << name;
        }
        // Reading clocks stays free (vDSO or not).
        for (const char* name : {"clock_gettime", "gettimeofday", "clock_getres", "time"}) {
            EXPECT_FALSE(denied.contains(name)) << name;
        }
    }
}

TEST(TheSeccompPolicy, DeniesLoadingAndRemovingKernelModulesLikeProtectKernelModules)
{
    const auto denied = denied_of(seccomp_policy_for(adapter(NetworkMode::Host, true)));
    for (const char* name : {"init_module", "finit_module", "delete_module"}) {
        EXPECT_EQ(denied.at(name), EPERM) << name;
    }
}

TEST(ThePersonalityRules, LetAProcessQueryItsPersonalityOrKeepPerLinux)
{
    const auto policy = seccomp_policy_for(adapter(NetworkMode::Host, false));
    EXPECT_EQ(denial_for(policy, "personality", {0xffffffffULL}), std::nullopt) << "query";
    EXPECT_EQ(denial_for(policy, "personality", {0}), std::nullopt) << "PER_LINUX";
    // The kernel reads an unsigned int: junk in the high half changes nothing.
    EXPECT_EQ(denial_for(policy, "personality", {0xabcd000000000000ULL}), std::nullopt);
    EXPECT_EQ(denial_for(policy, "personality", {0xffffffffffffffffULL}), std::nullopt);
}

TEST(ThePersonalityRules, RefuseEveryOtherExecutionDomainOrFlag)
{
    const auto policy = seccomp_policy_for(adapter(NetworkMode::Host, false));
    // READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE, MMAP_PAGE_ZERO, PER_LINUX32, PER_BSD | STICKY_TIMEOUTS.
    for (const std::uint64_t persona : {0x0400000ULL, 0x0040000ULL, 0x0100000ULL, 0x0008ULL, 0x4000006ULL}) {
        EXPECT_EQ(denial_for(policy, "personality", {persona}), EPERM) << std::hex << persona;
        EXPECT_EQ(denial_for(policy, "personality", {persona | (1ULL << 40U)}), EPERM) << std::hex << persona;
    }
    // Every value with exactly one bit set or exactly one bit clear, and
    // every run of ones from either end: the cases nearest 0 and 0xffffffff.
    for (unsigned bit = 0; bit < 32; ++bit) {
        const std::uint64_t one = 1ULL << bit;
        EXPECT_EQ(denial_for(policy, "personality", {one}), EPERM) << bit;
        EXPECT_EQ(denial_for(policy, "personality", {0xffffffffULL & ~one}), EPERM) << bit;
        if (bit > 0) {
            EXPECT_EQ(denial_for(policy, "personality", {one - 1}), EPERM) << bit;
            EXPECT_EQ(denial_for(policy, "personality", {0xffffffffULL & ~(one - 1)}), EPERM) << bit;
        }
    }
    // A pseudo-random walk through the rest.
    std::uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 100000; ++i) {
        x ^= x << 13U;
        x ^= x >> 7U;
        x ^= x << 17U;
        const auto low = x & kLow32Bits;
        const bool keeps_linux = low == 0 || low == kLow32Bits;
        EXPECT_EQ(denial_for(policy, "personality", {x}).has_value(), !keeps_linux) << std::hex << x;
    }
}

TEST(TheSeccompPolicy, InspectsNoArgumentOfAHotSyscallSoTheKernelCachesItsVerdict)
{
    // The calls an agent makes all the time (file access, memory, threads,
    // time, pipes and sockets of an outbound connection). A rule that reads
    // an argument of any of them would make every call run every filter.
    for (const bool nested : {false, true}) {
        const auto policy = seccomp_policy_for(adapter(NetworkMode::Host, nested));
        for (const char* name : {"openat",         "open",         "read",       "write",         "pread64",
                                 "pwrite64",       "readv",        "writev",     "close",         "fstat",
                                 "newfstatat",     "statx",        "lstat",      "stat",          "lseek",
                                 "getdents64",     "readlink",     "readlinkat", "access",        "faccessat2",
                                 "mmap",           "munmap",       "mprotect",   "madvise",       "brk",
                                 "futex",          "getpid",       "gettid",     "clock_gettime", "rt_sigaction",
                                 "rt_sigprocmask", "rt_sigreturn", "epoll_wait", "epoll_pwait",   "epoll_ctl",
                                 "poll",           "ppoll",        "pselect6",   "fcntl",         "dup3",
                                 "pipe2",          "socket",       "connect",    "sendto",        "recvfrom",
                                 "sendmsg",        "recvmsg",      "getrandom",  "clone",         "execve",
                                 "wait4",          "exit_group",   "mkdirat",    "unlinkat",      "renameat2",
                                 "fchmod",         "fchmodat",     "chmod",      "mkdir",         "creat",
                                 "mknodat"}) {
            EXPECT_FALSE(inspects_arguments_of(policy, name)) << name;
            EXPECT_EQ(denial_for(policy, name, {}), std::nullopt) << name;
        }
        EXPECT_TRUE(inspects_arguments_of(policy, "ioctl"));
        EXPECT_TRUE(inspects_arguments_of(policy, "personality"));
    }
}
