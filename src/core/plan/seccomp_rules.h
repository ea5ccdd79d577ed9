// SPDX-License-Identifier: Apache-2.0
#pragma once
// The seccomp policy as data. The launcher turns it into BPF with libseccomp;
// keeping the list here lets unit tests state exactly what is denied without
// loading a filter, and lets a build-time check resolve every name.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/launch/seccomp_types.h"

namespace nr::core {

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
