// SPDX-License-Identifier: Apache-2.0
#pragma once
// A session's listener: adopted when the helper registers the session (or
// systemd hands it back after a restart), accepting client connections
// within the session's and the host's connection limits, and closed with
// every connection of the session when the helper revokes it.

#include "gateway/session.h"
#include "sys/base/unique_fd.h"

#include <string>

namespace nr::gateway {

// Starts serving `config.unit` on `listener`; empty when it does, else
// why not. `stored_as`: the name of a session restored from systemd's
// descriptor store, where it already is.
std::string register_session(Shared& shared, const core::GatewaySession& config, sys::UniqueFd listener,
                             const std::string& stored_as = {});

// Closes the unit's listener and cuts its connections; empty when it did,
// else why not.
std::string revoke_session(Shared& shared, const std::string& unit);

// Whether an accept failed because the process has no descriptor or memory
// left. The waiting connection stays queued, so accepting again at once
// fails the same way: the caller pauses with pause_accepting instead.
bool out_of_resources(const boost::system::error_code& ec);

// Waits before the next accept after out_of_resources, so that a loop at
// the descriptor limit does not starve every session of the one thread.
boost::asio::awaitable<void> pause_accepting(boost::asio::steady_timer& timer, const std::string& what,
                                             const boost::system::error_code& ec);

} // namespace nr::gateway
