// SPDX-License-Identifier: Apache-2.0
#pragma once
// The descriptors systemd hands a service (socket activation, and on
// systemd >= 257 a transient unit's ExtraFileDescriptors=), read from
// LISTEN_PID, LISTEN_FDS and LISTEN_FDNAMES the way sd_listen_fds_with_names
// reads them, but without linking libsystemd: the launcher that takes its
// launch spec this way is meant to need no bus client at all. (The gateway,
// which links libsystemd anyway, reads its sockets with
// sys/service/listen_fds.h.)
//
// Stricter than libsystemd, because a launcher must fail closed: set
// variables meant for another process, a count or a name list that does not
// add up, an invalid or repeated name, or more than kMaxPassedDescriptors are
// refused with Error(LaunchFailed), never read as "nothing passed".

#include <map>
#include <optional>
#include <string>

namespace nr::core {

// What systemd starts descriptors at (SD_LISTEN_FDS_START).
inline constexpr int kFirstPassedDescriptor = 3;
// The launch path passes two; the bound keeps a wrong environment from
// naming thousands.
inline constexpr int kMaxPassedDescriptors = 16;
// systemd's own limit for a descriptor name (FDNAME_MAX).
inline constexpr std::size_t kMaxDescriptorName = 255;

struct ListenEnvironment {
    std::optional<std::string> pid;   // LISTEN_PID
    std::optional<std::string> fds;   // LISTEN_FDS
    std::optional<std::string> names; // LISTEN_FDNAMES
};

// name -> descriptor number. Empty when none of the three variables is set.
using PassedDescriptors = std::map<std::string, int>;

PassedDescriptors passed_descriptors(const ListenEnvironment& env, long self_pid);

// The descriptor passed under `name`; Error(LaunchFailed) naming it when
// systemd passed none under that name.
int passed_descriptor(const PassedDescriptors& passed, const std::string& name);

// systemd's rule for a descriptor name: 1..255 printable ASCII bytes, no ':'.
bool valid_descriptor_name(const std::string& name);

} // namespace nr::core
