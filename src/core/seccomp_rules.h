#pragma once
// The seccomp policy as data. The launcher turns it into BPF with libseccomp;
// keeping the list here lets unit tests state exactly what is denied without
// loading a filter, and lets a build-time check resolve every name.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/config.h"

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

SeccompPolicy seccomp_policy_for(const AdapterProfile& adapter);

// What the program built from `policy` answers for a call of `name` with
// these six arguments: the errno of the first rule that applies (libseccomp
// gives every rule of this policy the same priority, and no two rules that
// could both apply carry different errnos), or nullopt for "allowed".
std::optional<int> denial_for(const SeccompPolicy& policy, const std::string& name,
                              const std::array<std::uint64_t, 6>& args);

// True when some rule for `name` looks at an argument. The kernel (5.11+)
// caches "allowed" for a syscall number only when every filter of the stack
// allows it without reading an argument, so a hot call must never appear
// here: one argument rule makes every call of it run every filter.
bool inspects_arguments_of(const SeccompPolicy& policy, const std::string& name);

} // namespace nr::core
