// SPDX-License-Identifier: Apache-2.0
#pragma once
// The egress gateway's side of `network: gateway` sessions: each session's
// listener is registered with the gateway (core/gateway/egress.h) once its launcher
// hands it over, and revoked when the session's unit ends.

#include "core/config/config.h"
#include "core/gateway/egress.h"

#include <set>
#include <string>

namespace nr::daemon {

// The adapter `name` when it routes through the gateway, else nullptr.
const core::AdapterProfile* gateway_adapter(const core::Config& config, const std::string& name);

class GatewayRegistrations {
public:
    explicit GatewayRegistrations(const core::Config& config) : config_(config) {}

    // Registers `session` with the listening socket `listener`: refused
    // (LaunchFailed) unless it is a listening TCP socket, and as the gateway
    // answers otherwise.
    void add(const core::GatewaySession& session, int listener);
    // A unit a previous helper instance may have registered: revoked at its
    // end like the units registered here.
    void adopt(const std::string& unit) { units_.insert(unit); }
    // Tells the gateway that `unit` ended, when it was registered; best
    // effort, a failure is logged.
    void revoke(const std::string& unit);

private:
    const core::Config& config_;
    std::set<std::string> units_;
};

} // namespace nr::daemon
