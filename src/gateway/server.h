// SPDX-License-Identifier: Apache-2.0
#pragma once
// The gateway's event loop: the control socket (control.cpp), every
// session's listener (listener.cpp), every client connection
// (connection.cpp, forward.cpp, tunnel.cpp) and every upstream connection
// (upstream.cpp), on one thread. Beast and Asio stay inside those files;
// main.cpp sees only this header.

#include <memory>
#include <string>

#include "gateway/session_store.h"
#include "sys/base/unique_fd.h"

namespace nr::gateway {

struct ServerOptions {
    std::string credentials_dir; // empty: no keys, provider requests get 502
    std::string credential_prefix;
    std::string upstream_ca; // empty: the system's trust store
};

// Serves `restored` (sessions a previous gateway process registered, from
// systemd's descriptor store) and whatever the helper registers on
// `control`, until SIGTERM or SIGINT. Throws for a setup failure (TLS
// context).
void run_server(sys::UniqueFd control, std::vector<StoredSession> restored, const ServerOptions& options);

} // namespace nr::gateway
