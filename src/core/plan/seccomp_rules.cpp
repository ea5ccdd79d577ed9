// SPDX-License-Identifier: Apache-2.0
#include "core/plan/seccomp_rules.h"

#include <sys/ioctl.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <string_view>

namespace nr::core {

namespace {

// Serving connections from inside a session would let model-controlled code
// expose the workspace to anything that can reach the host; outbound
// connections stay available.
constexpr std::array<std::string_view, 3> kStreamListeners{"listen", "accept", "accept4"};

// io_uring bypasses per-syscall filtering of the operations it performs.
constexpr std::array<std::string_view, 3> kIoUring{"io_uring_setup", "io_uring_enter", "io_uring_register"};

// Kernel interfaces an agent has no business with and that widen the attack
// surface on the kernel: keyrings, tracing and reading the memory of other
// processes, performance counters, BPF, userfaultfd (a classic exploitation
// aid), kexec and kernel modules. Without capabilities the kernel already
// refuses some (kexec, modules, privileged BPF) but allows others to any
// process (ptrace and process_vm_* on its own children, its own keyrings,
// user-space perf counters, user-mode userfaultfd); seccomp refuses all of
// them before the kernel looks at a single argument.
constexpr std::array<std::string_view, 14> kPrivileged{
    "keyctl",          "add_key",      "request_key", "ptrace",     "process_vm_readv", "process_vm_writev",
    "perf_event_open", "bpf",          "userfaultfd", "kexec_load", "kexec_file_load",  "init_module",
    "finit_module",    "delete_module"};

// What systemd's ProtectKernelLogs= and ProtectClock= filters refuse, moved
// here so that the unit installs no filter of its own for them (see "One
// cacheable filter stack" in docs/security-model.md): reading or clearing
// the kernel log, and setting or adjusting any clock. Without capabilities
// the kernel refuses setting a clock already, and reading the log too when
// kernel.dmesg_restrict is 1; seccomp refuses them on every host, before
// the kernel looks at an argument.
constexpr std::array<std::string_view, 5> kKernelLogAndClock{"syslog", "adjtimex", "clock_adjtime", "clock_settime",
                                                             "settimeofday"};

// Namespaces and mounts, old and new mount API. Refused unless the adapter
// nests its own sandbox (nested_userns: true): a nested bwrap needs these
// (unshare, mount, pivot_root, umount2) inside the user namespace it creates.
constexpr std::array<std::string_view, 12> kNamespacesAndMounts{"mount",    "umount2",   "pivot_root", "unshare",
                                                                "setns",    "open_tree", "move_mount", "fsopen",
                                                                "fsconfig", "fsmount",   "fspick",     "mount_setattr"};

// ioctl requests that push input into a terminal (TIOCSTI) or drive the
// virtual console (TIOCLINUX, e.g. its selection and paste): either can make
// a process outside the session run what the session typed.
constexpr std::array<unsigned long, 2> kTerminalInjection{TIOCSTI, TIOCLINUX};

// LockPersonality=, moved here: personality(2) may only query (0xffffffff)
// or keep PER_LINUX (0); every other execution domain or flag
// (READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE, MMAP_PAGE_ZERO, ...) is refused.
// The kernel reads the argument as an unsigned int, so only its low 32 bits
// count. A single masked comparison cannot say "neither all zeros nor all
// ones", but 32 can: a 32-bit value that is not constant has, reading its
// bits around in a circle, some set bit i whose neighbour i+1 (mod 32) is
// clear, and 0 and 0xffffffff have none. personality is called rarely (once
// by setarch-like tools), so its comparisons cost the hot calls nothing.
constexpr unsigned kPersonalityBits = 32;

void deny_personality_changes(SeccompPolicy& policy)
{
    for (unsigned bit = 0; bit < kPersonalityBits; ++bit) {
        const std::uint64_t set = 1ULL << bit;
        const std::uint64_t next_clear = 1ULL << ((bit + 1) % kPersonalityBits);
        policy.denied.push_back({"personality", EPERM, ArgumentMatch{0, set | next_clear, set}});
    }
}

bool rule_applies(const SyscallRule& rule, const std::string& name, const std::array<std::uint64_t, 6>& args)
{
    if (rule.name != name) {
        return false;
    }
    return !rule.when ||
           (rule.when->index < args.size() && (args.at(rule.when->index) & rule.when->mask) == rule.when->value);
}

} // namespace

std::optional<int> denial_for(const SeccompPolicy& policy, const std::string& name,
                              const std::array<std::uint64_t, 6>& args)
{
    for (const auto& rule : policy.denied) {
        if (rule_applies(rule, name, args)) {
            return rule.errno_value;
        }
    }
    return std::nullopt;
}

bool inspects_arguments_of(const SeccompPolicy& policy, const std::string& name)
{
    return std::any_of(policy.denied.begin(), policy.denied.end(),
                       [&name](const SyscallRule& rule) { return rule.name == name && rule.when.has_value(); });
}

SeccompPolicy seccomp_policy_for(const AdapterProfile& adapter)
{
    SeccompPolicy policy;
    auto deny = [&policy](const auto& names, int errno_value) {
        for (const auto name : names) {
            policy.denied.push_back({std::string(name), errno_value, std::nullopt});
        }
    };
    deny(kStreamListeners, EPERM);
    deny(kIoUring, EPERM);
    deny(kPrivileged, EPERM);
    deny(kKernelLogAndClock, EPERM);
    if (!adapter.nested_userns) {
        deny(kNamespacesAndMounts, EPERM);
    }
    // ENOSYS, not EPERM: clone3 passes its flags in memory, where seccomp
    // cannot inspect them, and libc falls back to clone(2) on ENOSYS only.
    policy.denied.push_back({"clone3", ENOSYS, std::nullopt});
    for (const auto request : kTerminalInjection) {
        policy.denied.push_back({"ioctl", EPERM, ArgumentMatch{1, kLow32Bits, request}});
    }
    deny_personality_changes(policy);
    return policy;
}

} // namespace nr::core
