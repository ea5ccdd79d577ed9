// SPDX-License-Identifier: Apache-2.0
#pragma once
// The service manager's file descriptor store (FileDescriptorStoreMax= in
// the unit): descriptors kept under a name across a restart of this
// service, handed back with the others in LISTEN_FDS (sys/service/listen_fds.h).

#include <span>
#include <string_view>

namespace nr::sys {

// Hands `fds` to the store under `name`. False when the manager did not
// take them (no NOTIFY_SOCKET, or the notification failed).
bool store_fds(std::string_view name, std::span<const int> fds);

// Drops every descriptor stored under `name`; a store without them is no
// error.
void remove_stored_fds(std::string_view name);

} // namespace nr::sys
