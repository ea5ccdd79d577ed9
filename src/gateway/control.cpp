// SPDX-License-Identifier: Apache-2.0
// clang-format off
#include "gateway/asio_config.h"
// clang-format on
#include "gateway/control.h"

#include "core/gateway/egress.h"
#include "gateway/connection.h"
#include "gateway/control_socket.h"
#include "gateway/listener.h"
#include "gateway/session_store.h"

#include <cerrno>
#include <iostream>
#include <sys/socket.h>

namespace nr::gateway {

namespace {

using asio::awaitable;

// FileDescriptorStoreMax= in the unit holds two descriptors per session.
// Beyond it systemd drops what it is sent without telling the sender, so
// the gateway counts and says which sessions a restart would lose.
constexpr std::size_t kMaxStoredSessions = 16384 / 2;

// Puts the session's listener and the helper's registration into systemd's
// descriptor store; a session that cannot be kept there is served all the
// same, and only a restart of the gateway would lose it.
void keep_across_restart(Shared& shared, Session& session, const std::string& registration)
{
    if (shared.stored_sessions >= kMaxStoredSessions) {
        std::cerr << "native-runtime-gateway: systemd's descriptor store is full; a restart of the gateway would cut "
                  << session.config.unit << " off\n";
        return;
    }
    const int listener = session.acceptor.native_handle();
    const auto name = stored_name(listener);
    try {
        if (store_session(name, listener, registration)) {
            session.stored_as = name;
            ++shared.stored_sessions;
        }
    } catch (const std::exception& e) {
        std::cerr << "native-runtime-gateway: cannot keep " << session.config.unit << " across a restart: " << e.what()
                  << '\n';
    }
}

std::string handle_control(Shared& shared, ControlDatagram datagram)
{
    if (!datagram.error.empty()) {
        return datagram.error;
    }
    core::GatewayControl control;
    try {
        control = core::decode_gateway_control(datagram.message);
    } catch (const std::exception& e) {
        return e.what();
    }
    if (control.kind == core::GatewayControl::Kind::Revoke) {
        if (datagram.descriptor.valid()) {
            return "a revocation carries no descriptor";
        }
        return revoke_session(shared, control.session.unit);
    }
    auto problem = register_session(shared, control.session, std::move(datagram.descriptor));
    if (problem.empty()) {
        keep_across_restart(shared, *shared.sessions.at(control.session.unit), datagram.message);
    }
    return problem;
}

std::string one_line(std::string text)
{
    for (auto& c : text) {
        if (c == '\n' || c == '\r') {
            c = ' ';
        }
    }
    return text;
}

awaitable<void> control_peer(Shared& shared, sys::UniqueFd fd)
{
    asio::posix::stream_descriptor peer(shared.io, fd.release());
    for (;;) {
        beast::error_code ec;
        co_await peer.async_wait(asio::posix::descriptor_base::wait_read, with(ec));
        if (ec) {
            co_return;
        }
        auto datagram = receive_datagram(peer.native_handle());
        if (datagram.again) {
            continue;
        }
        if (datagram.closed) {
            co_return;
        }
        const auto problem = handle_control(shared, std::move(datagram));
        send_reply(peer.native_handle(), problem.empty() ? "ok\n" : "error " + one_line(problem) + "\n");
    }
}

} // namespace

awaitable<void> control_loop(Shared& shared, sys::UniqueFd control)
{
    asio::posix::stream_descriptor listener(shared.io, control.release());
    // A connection that is gone again by the time accept4 runs must not
    // block the one thread every session depends on.
    listener.non_blocking(true);
    asio::steady_timer backoff(shared.io);
    for (;;) {
        beast::error_code ec;
        co_await listener.async_wait(asio::posix::descriptor_base::wait_read, with(ec));
        if (ec) {
            co_return;
        }
        sys::UniqueFd peer(accept4(listener.native_handle(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
        if (!peer.valid()) {
            // A failure for want of descriptors repeats until some close,
            // and the listener stays readable all the while.
            if (const beast::error_code failed(errno, beast::system_category()); out_of_resources(failed)) {
                co_await pause_accepting(backoff, "the control socket", failed);
            }
            continue;
        }
        if (!peer_is_root(peer.get())) {
            continue; // closed unanswered: only root may register sessions
        }
        asio::co_spawn(shared.io, control_peer(shared, std::move(peer)), asio::detached);
    }
}

} // namespace nr::gateway
