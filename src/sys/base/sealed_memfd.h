// SPDX-License-Identifier: Apache-2.0
#pragma once
// Read-only data handed to bwrap by descriptor (seccomp program, options).
// The memfd is sealed before anyone reads it, so nothing can change what was
// checked between writing and bwrap consuming it.

#include <cstddef>
#include <string>
#include <string_view>
#include <sys/types.h>

#include "sys/base/unique_fd.h"

namespace nr::sys {

// A new close-on-exec memfd that allows sealing. Throws LaunchFailed.
UniqueFd new_sealable_memfd(const char* name);

// Seals against any change and rewinds to the start. Throws LaunchFailed.
void seal_and_rewind(int fd, std::string_view what);

// A sealed memfd holding `data`.
UniqueFd sealed_memfd(const char* name, std::string_view data);

// The whole content of a descriptor someone else sealed, read only if it is
// a memfd sealed against any change, owned by `owner` and at most
// `max_size` bytes; anything else is refused with LaunchFailed naming
// `what`, so a descriptor that could still change, or that another user
// made, is never read as the expected one (the launch spec the helper
// sends over a helper channel, sys/base/launch_channel.h).
std::string read_sealed_memfd(int fd, uid_t owner, std::size_t max_size, std::string_view what);

// Lets exactly this descriptor survive execve.
void keep_across_exec(int fd, std::string_view what);

} // namespace nr::sys
