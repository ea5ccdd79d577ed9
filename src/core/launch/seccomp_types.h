// SPDX-License-Identifier: Apache-2.0
#pragma once
// The seccomp policy's vocabulary: what a rule and a policy are. The
// planner (core/plan/seccomp_rules.h) decides the rules; the launcher loads them
// and the supervisor counts their denials, neither of which needs the
// configuration model the planner reads.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nr::core {

// The rule applies only to calls whose argument `index` (0-5) satisfies
// (argument & mask) == value (libseccomp's SCMP_CMP_MASKED_EQ). seccomp sees
// all 64 bits of an argument, while some calls use only the low 32 (ioctl's
// request is an unsigned int in the kernel), so a mask of 0xffffffff also
// catches a request with junk in the high bits.
struct ArgumentMatch {
    unsigned index = 0;
    std::uint64_t mask = 0;
    std::uint64_t value = 0;

    bool operator==(const ArgumentMatch&) const = default;
};

struct SyscallRule {
    std::string name;
    int errno_value = 0;               // returned instead of running the call
    std::optional<ArgumentMatch> when; // unset: every call of `name`

    bool operator==(const SyscallRule&) const = default;
};

struct SeccompPolicy {
    // Default action is allow; these are the exceptions.
    std::vector<SyscallRule> denied;
    // Calls through any ABI other than the native one (i386 int 0x80, x32)
    // kill the process: the deny-list above only names native numbers.
    bool kill_foreign_abis = true;
};

// The mask for a 32-bit argument passed in a 64-bit register.
inline constexpr std::uint64_t kLow32Bits = 0xffffffffULL;

} // namespace nr::core
