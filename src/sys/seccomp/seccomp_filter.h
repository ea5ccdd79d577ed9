// SPDX-License-Identifier: Apache-2.0
#pragma once
// Turns the core's seccomp policy into a BPF program in a sealed-off memfd
// that bwrap reads through --seccomp FD. Any libseccomp failure, including
// a syscall name it does not know, is an error: there is no partial filter.

#include "core/launch/seccomp_types.h"
#include "sys/base/unique_fd.h"

namespace nr::sys {

// Throws core::Error(LaunchFailed).
UniqueFd export_seccomp_filter(const core::SeccompPolicy& policy);

// True when libseccomp resolves `name` to a syscall of the native
// architecture (not merely to a pseudo number for another architecture).
bool syscall_name_is_known(const std::string& name);

} // namespace nr::sys
