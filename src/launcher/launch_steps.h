// SPDX-License-Identifier: Apache-2.0
#pragma once
// The launcher's mechanisms, each a small step so main() reads as the
// sequence it performs. Any failing step throws: the launcher never execs
// bwrap without the full spec and the seccomp filter.

#include <string>
#include <vector>

#include "core/launch/launch_spec.h"
#include "sys/base/unique_fd.h"

namespace nr::launcher {

// bwrap must be a root-owned regular file nobody else can write.
void check_trusted_binary(const std::string& path);

// execve; returns only on failure (throws).
[[noreturn]] void exec_sandbox(const std::vector<std::string>& argv, const std::vector<std::string>& env);

} // namespace nr::launcher
