// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a process does just before it execs another program: keeps no
// descriptor the next program was not meant to have, and hands execve its
// argument and environment vectors.

#include <string>
#include <vector>

namespace nr::sys {

// Closes every descriptor above stderr except `keep` (-1, or anything
// below 3: none is kept). Throws core::Error(LaunchFailed) when the kernel
// refuses: a program that must not inherit a descriptor does not start.
void close_fds_above_stderr_except(int keep);

// `items` as execve(2) takes them: their C strings, then a null pointer.
// Points into `items`, which must outlive the result.
std::vector<char*> exec_vector(const std::vector<std::string>& items);

} // namespace nr::sys
