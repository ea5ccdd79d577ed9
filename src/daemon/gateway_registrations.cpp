// SPDX-License-Identifier: Apache-2.0
#include "daemon/gateway_registrations.h"

#include "core/base/error.h"
#include "core/plan/gateway_plan.h"
#include "daemon/handler_steps.h"
#include "sys/net/gateway_control.h"

#include <sys/socket.h>

#include <chrono>

namespace nr::daemon {

namespace {

// The gateway is socket-activated: the first registration may wait for
// its start. A revoke must not hold the helper's loop up for long.
constexpr auto kGatewayRegisterTimeout = std::chrono::seconds(10);
constexpr auto kGatewayRevokeTimeout = std::chrono::seconds(2);

// What the launcher hands over must be what the gateway expects to accept
// on: a listening TCP/IPv4 socket (the launcher's, on 127.0.0.1 in the
// session's namespace). Anything else is refused before the gateway sees it.
void require_listening_tcp_socket(int fd)
{
    const auto option = [fd](int name) {
        int value = -1;
        socklen_t size = sizeof(value);
        return getsockopt(fd, SOL_SOCKET, name, &value, &size) == 0 ? value : -1;
    };
    if (option(SO_DOMAIN) != AF_INET || option(SO_TYPE) != SOCK_STREAM || option(SO_ACCEPTCONN) != 1) {
        core::fail(core::ErrorKind::LaunchFailed, "the handed-over descriptor is not a listening TCP socket");
    }
}

} // namespace

const core::AdapterProfile* gateway_adapter(const core::Config& config, const std::string& name)
{
    const auto it = config.adapters.find(name);
    return it != config.adapters.end() && it->second.network == core::NetworkMode::Gateway ? &it->second : nullptr;
}

void GatewayRegistrations::add(const core::GatewaySession& session, int listener)
{
    // validate, then act: the gateway answers "ok" or why not.
    require_listening_tcp_socket(listener);
    const auto message = core::encode_gateway_register(session);
    auto answer = sys::gateway_exchange(config_.gateway.control_socket, message, listener, kGatewayRegisterTimeout);
    if (core::is_stale_registration(answer)) {
        // The gateway still serves an earlier session of this unit, whose
        // revoke was lost: its entry holds that session's listener, and
        // with it the session's network namespace. It goes first.
        log_trouble(session.unit, "the egress gateway still had an earlier " + session.unit + "; replacing it");
        core::check_gateway_answer(sys::gateway_exchange(
            config_.gateway.control_socket, core::encode_gateway_revoke(session.unit), -1, kGatewayRevokeTimeout));
        answer = sys::gateway_exchange(config_.gateway.control_socket, message, listener, kGatewayRegisterTimeout);
    }
    core::check_gateway_answer(answer);
    units_.insert(session.unit);
}

void GatewayRegistrations::revoke(const std::string& unit)
{
    if (units_.erase(unit) == 0) {
        return;
    }
    try {
        core::check_gateway_answer(sys::gateway_exchange(config_.gateway.control_socket,
                                                         core::encode_gateway_revoke(unit), -1, kGatewayRevokeTimeout));
    } catch (const core::Error& e) {
        // The gateway keeps the entry, whose listener keeps the ended
        // session's network namespace alive, until it restarts or the next
        // session of this unit replaces it (add). The token reaches
        // nothing: no process is left in that namespace to send it.
        log_trouble(unit, "could not revoke " + unit + " at the egress gateway: " + e.what());
    }
}

} // namespace nr::daemon
