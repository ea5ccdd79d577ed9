// SPDX-License-Identifier: Apache-2.0
// Build-time check: every rule of every seccomp policy the core can produce
// names a syscall of this architecture and compiles into a filter. The
// build runs this program and fails when it does, so an unknown or foreign
// syscall name is a build error, not a launch failure in production.

#include "core/base/error.h"
#include "core/plan/seccomp_rules.h"
#include "sys/seccomp/seccomp_filter.h"

#include <iostream>
#include <string>

int main()
{
    int failures = 0;
    std::size_t rules = 0;
    for (const bool nested_userns : {false, true}) {
        for (const auto network : {nr::core::NetworkMode::Host, nr::core::NetworkMode::Offline}) {
            nr::core::AdapterProfile profile;
            profile.name = "check";
            profile.executable = "/bin/true";
            profile.network = network;
            profile.nested_userns = nested_userns;
            const std::string which = std::string("seccomp policy for nested_userns=") +
                                      (nested_userns ? "true" : "false") +
                                      ", network=" + (network == nr::core::NetworkMode::Host ? "host" : "offline");
            const auto policy = nr::core::seccomp_policy_for(profile);
            for (const auto& rule : policy.denied) {
                ++rules;
                if (!nr::sys::syscall_name_is_known(rule.name)) {
                    std::cerr << which << ": '" << rule.name
                              << "' is not a syscall libseccomp knows for this architecture\n";
                    ++failures;
                }
            }
            try {
                nr::sys::export_seccomp_filter(policy);
            } catch (const nr::core::Error& e) {
                std::cerr << which << " does not compile: " << e.what() << '\n';
                ++failures;
            }
        }
    }
    if (failures != 0) {
        return 1;
    }
    std::cout << "seccomp policy: " << rules << " rules in 4 profiles resolve and compile\n";
    return 0;
}
