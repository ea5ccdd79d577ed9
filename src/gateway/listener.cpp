// SPDX-License-Identifier: Apache-2.0
// clang-format off
#include "gateway/asio_config.h"
// clang-format on
#include "gateway/listener.h"

#include "core/gateway/gateway_log.h"
#include "gateway/connection.h"
#include "gateway/control_socket.h"
#include "gateway/session_store.h"
#include "sys/base/journal_writer.h"

#include <iostream>

namespace nr::gateway {

namespace {

using tcp = asio::ip::tcp;
using asio::awaitable;

// How long the accept loops pause when the process has no descriptor or
// memory left, instead of failing the same accept in a busy loop.
constexpr auto kAcceptBackoff = std::chrono::milliseconds(100);

// A detached coroutine's exception would end it unseen (or end the
// process from io_context::run): it is recorded, and its session goes on.
void record_fault(const Session& session, const std::string& where, const std::exception& e)
{
    std::cerr << "native-runtime-gateway: fault in " << where << " of " << session.config.unit << ": " << e.what()
              << '\n';
    sys::write_log(core::gateway_fault_record(session.config, where, e.what()));
}

awaitable<void> serve_connection(std::shared_ptr<Connection> connection, std::shared_ptr<Session> session)
{
    try {
        co_await connection->serve();
    } catch (const std::exception& e) {
        connection->cut();
        record_fault(*session, "connection", e);
    }
}

// A connection the gateway will not serve: closed at once, and recorded
// (within the session's share of refusal records).
void turn_away(Session& session, tcp::socket& socket, const char* reason)
{
    beast::error_code ignored;
    socket.close(ignored);
    core::GatewayExchange exchange;
    exchange.method = "-";
    exchange.refused = reason;
    ++session.counters.requests;
    record_refusal(session, exchange);
}

// Within the host's and the session's connection limits, an accepted
// client is served; beyond them, closed and recorded.
void serve_or_turn_away(Shared& shared, const std::shared_ptr<Session>& session, tcp::socket socket)
{
    if (shared.host_load->open_connections >= shared.host_load->max_connections) {
        turn_away(*session, socket, "host-descriptors");
        return;
    }
    if (session->open_connections >= session->config.max_connections) {
        turn_away(*session, socket, "connection-limit");
        return;
    }
    auto connection = std::make_shared<Connection>(shared, session, std::move(socket));
    session->connections.remove_if([](const auto& weak) { return weak.expired(); });
    session->connections.push_back(connection);
    asio::co_spawn(shared.io, serve_connection(std::move(connection), session), asio::detached);
}

// One accept and what follows it; false once the session's listener is
// closed.
awaitable<bool> accept_one(Shared& shared, const std::shared_ptr<Session>& session, asio::steady_timer& backoff)
{
    beast::error_code ec;
    auto socket = co_await session->acceptor.async_accept(with(ec));
    if (session->revoked || ec == asio::error::operation_aborted || ec == asio::error::bad_descriptor) {
        co_return false;
    }
    if (out_of_resources(ec)) {
        co_await pause_accepting(backoff, session->config.unit, ec);
        co_return true;
    }
    if (!ec) { // ECONNABORTED and the like: the next client
        serve_or_turn_away(shared, session, std::move(socket));
    }
    co_return true;
}

awaitable<void> accept_loop(Shared& shared, std::shared_ptr<Session> session)
{
    asio::steady_timer backoff(shared.io);
    while (!session->revoked) {
        bool faulted = false;
        try {
            if (!co_await accept_one(shared, session, backoff)) {
                co_return;
            }
        } catch (const std::exception& e) {
            record_fault(*session, "accept", e);
            faulted = true;
        }
        if (faulted) { // paused, in case the fault repeats on every accept
            co_await pause_accepting(backoff, session->config.unit, asio::error::fault);
        }
    }
}

} // namespace

bool out_of_resources(const beast::error_code& ec)
{
    return ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space || ec == asio::error::no_memory ||
           ec.value() == ENFILE;
}

awaitable<void> pause_accepting(asio::steady_timer& timer, const std::string& what, const beast::error_code& ec)
{
    std::cerr << "native-runtime-gateway: cannot accept for " << what << ": " << ec.message() << "; pausing\n";
    timer.expires_after(kAcceptBackoff);
    beast::error_code ignored;
    co_await timer.async_wait(with(ignored));
}

std::string register_session(Shared& shared, const core::GatewaySession& config, sys::UniqueFd listener,
                             const std::string& stored_as)
{
    if (!listener.valid()) {
        return "a registration needs exactly one listener";
    }
    if (auto problem = listener_problem(listener.get()); !problem.empty()) {
        return problem;
    }
    if (shared.sessions.count(config.unit) != 0) {
        return std::string(core::kUnitAlreadyRegistered);
    }
    auto session = std::make_shared<Session>(shared.io, config);
    beast::error_code ec;
    session->acceptor.assign(tcp::v4(), listener.get(), ec);
    if (ec) {
        return "cannot adopt the listener: " + ec.message();
    }
    session->stored_as = stored_as;
    if (!stored_as.empty()) {
        ++shared.stored_sessions;
    }
    listener.release();
    session->port = session->acceptor.local_endpoint(ec).port();
    shared.sessions.emplace(config.unit, session);
    asio::co_spawn(shared.io, accept_loop(shared, session), asio::detached);
    return {};
}

std::string revoke_session(Shared& shared, const std::string& unit)
{
    const auto it = shared.sessions.find(unit);
    if (it == shared.sessions.end()) {
        return "unit not registered";
    }
    auto session = it->second;
    shared.sessions.erase(it);
    session->revoked = true;
    if (!session->stored_as.empty()) {
        forget_session(session->stored_as);
        --shared.stored_sessions;
    }
    beast::error_code ignored;
    session->acceptor.close(ignored);
    for (const auto& weak : session->connections) {
        if (const auto connection = weak.lock()) {
            connection->cut();
        }
    }
    write_refusal_summaries(*session, true);
    sys::write_log(core::gateway_revoke_record(session->config, session->counters));
    return {};
}

} // namespace nr::gateway
