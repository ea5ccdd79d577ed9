#pragma once
// The seccomp policy as data. The launcher turns it into BPF with libseccomp;
// keeping the list here lets unit tests state exactly what is denied without
// loading a filter, and lets a build-time check resolve every name.

#include <string>
#include <vector>

#include "core/config.h"

namespace nr::core {

struct SyscallRule {
    std::string name;
    int errno_value = 0; // returned instead of running the call
};

struct SeccompPolicy {
    // Default action is allow; these are the exceptions.
    std::vector<SyscallRule> denied;
    // Calls through any ABI other than the native one (i386 int 0x80, x32)
    // kill the process: the deny-list above only names native numbers.
    bool kill_foreign_abis = true;
};

SeccompPolicy seccomp_policy_for(const AdapterProfile& adapter);

} // namespace nr::core
