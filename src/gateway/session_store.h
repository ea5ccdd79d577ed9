// SPDX-License-Identifier: Apache-2.0
#pragma once
// Running sessions kept across a restart of the gateway: each session's
// listener and its registration (a sealed memfd) go into systemd's file
// descriptor store (FileDescriptorStoreMax= in the unit), named after the
// listener, and come back with the control socket when the gateway starts
// again. Without it a restart (a new key, an upgrade) would leave every
// running gateway session with no way out.

#include "sys/base/unique_fd.h"

#include <optional>
#include <string>
#include <vector>

namespace nr::gateway {

struct StoredSession {
    std::string name;
    sys::UniqueFd listener;
    std::string registration; // as the helper sent it
};

struct InheritedDescriptors {
    std::optional<sys::UniqueFd> control; // from native-runtime-gateway.socket
    std::vector<StoredSession> sessions;
    std::vector<std::string> problems; // descriptors that were closed, and why
};

// What systemd passed (LISTEN_FDS, LISTEN_FDNAMES), or nothing when this
// process was not started by systemd. Throws when the descriptors are not
// what the units hand over (no control socket, or more than one).
InheritedDescriptors take_inherited_descriptors();

// The store's name for a session's listener: stable for as long as the
// listener exists, so a restored session is forgotten under the same name.
std::string stored_name(int listener);

// Keeps the listener and the registration in systemd's store. False when
// this process has no NOTIFY_SOCKET (not under systemd, e.g. --control).
bool store_session(const std::string& name, int listener, const std::string& registration);

// Drops them from the store (the session was revoked).
void forget_session(const std::string& name);

} // namespace nr::gateway
