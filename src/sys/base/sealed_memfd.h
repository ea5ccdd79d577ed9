// SPDX-License-Identifier: Apache-2.0
#pragma once
// Read-only data handed to bwrap by descriptor (seccomp program, options).
// The memfd is sealed before anyone reads it, so nothing can change what was
// checked between writing and bwrap consuming it.

#include <string>
#include <string_view>

#include "sys/base/unique_fd.h"

namespace nr::sys {

// A new close-on-exec memfd that allows sealing. Throws LaunchFailed.
UniqueFd new_sealable_memfd(const char* name);

// Seals against any change and rewinds to the start. Throws LaunchFailed.
void seal_and_rewind(int fd, std::string_view what);

// A sealed memfd holding `data`.
UniqueFd sealed_memfd(const char* name, std::string_view data);

// Lets exactly this descriptor survive execve.
void keep_across_exec(int fd, std::string_view what);

} // namespace nr::sys
