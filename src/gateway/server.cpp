// clang-format off
#include "gateway/asio_config.h"
// clang-format on
#include "gateway/server.h"

#include "core/base/error.h"
#include "core/gateway/egress.h"
#include "core/gateway/gateway_log.h"
#include "gateway/connection.h"
#include "gateway/control_socket.h"
#include "gateway/credential_store.h"
#include "gateway/session.h"
#include "gateway/session_store.h"
#include "sys/base/journal_writer.h"

#include <iostream>
#include <limits>
#include <sys/resource.h>
#include <sys/socket.h>

namespace nr::gateway {

namespace {

namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using asio::awaitable;

// Descriptors the gateway keeps for itself whatever the sessions do: the
// control socket and its peers, the journal, the resolver, the listeners.
constexpr std::uint64_t kReservedDescriptors = 1024;
// How long the accept loops pause when the process has no descriptor or
// memory left, instead of failing the same accept in a busy loop.
constexpr auto kAcceptBackoff = std::chrono::milliseconds(100);
constexpr auto kSummaryInterval = std::chrono::seconds(1);
// FileDescriptorStoreMax= in the unit holds two descriptors per session.
// Beyond it systemd drops what it is sent without telling the sender, so
// the gateway counts and says which sessions a restart would lose.
constexpr std::size_t kMaxStoredSessions = 16384 / 2;

awaitable<void> serve_connection(std::shared_ptr<Connection> connection)
{
    co_await connection->serve();
}

bool out_of_resources(const beast::error_code& ec)
{
    return ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space || ec == asio::error::no_memory ||
           ec.value() == ENFILE;
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

awaitable<void> accept_loop(Shared& shared, std::shared_ptr<Session> session)
{
    asio::steady_timer backoff(shared.io);
    while (!session->revoked) {
        beast::error_code ec;
        auto socket = co_await session->acceptor.async_accept(with(ec));
        if (session->revoked || ec == asio::error::operation_aborted || ec == asio::error::bad_descriptor) {
            co_return;
        }
        if (out_of_resources(ec)) {
            // The waiting connection stays in the listener's queue; a busy
            // loop here would starve every other session of the one thread.
            std::cerr << "native-runtime-gateway: cannot accept for " << session->config.unit << ": " << ec.message()
                      << "; pausing\n";
            backoff.expires_after(kAcceptBackoff);
            co_await backoff.async_wait(with(ec));
            continue;
        }
        if (ec) {
            continue; // ECONNABORTED and the like: the next client
        }
        if (shared.host_load->open_connections >= shared.host_load->max_connections) {
            turn_away(*session, socket, "host-descriptors");
            continue;
        }
        if (session->open_connections >= session->config.max_connections) {
            turn_away(*session, socket, "connection-limit");
            continue;
        }
        auto connection = std::make_shared<Connection>(shared, session, std::move(socket));
        session->connections.remove_if([](const auto& weak) { return weak.expired(); });
        session->connections.push_back(connection);
        asio::co_spawn(shared.io, serve_connection(std::move(connection)), asio::detached);
    }
}

// `stored_as`: the name of a session restored from systemd's descriptor
// store, where it already is.
std::string register_session(Shared& shared, const core::GatewaySession& config, sys::UniqueFd listener,
                             const std::string& stored_as = {})
{
    if (!listener.valid()) {
        return "a registration needs exactly one listener";
    }
    if (auto problem = listener_problem(listener.get()); !problem.empty()) {
        return problem;
    }
    if (shared.sessions.count(config.unit) != 0) {
        return "unit already registered";
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

awaitable<void> control_loop(Shared& shared, sys::UniqueFd control)
{
    asio::posix::stream_descriptor listener(shared.io, control.release());
    // A connection that is gone again by the time accept4 runs must not
    // block the one thread every session depends on.
    listener.non_blocking(true);
    for (;;) {
        beast::error_code ec;
        co_await listener.async_wait(asio::posix::descriptor_base::wait_read, with(ec));
        if (ec) {
            co_return;
        }
        sys::UniqueFd peer(accept4(listener.native_handle(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
        if (!peer.valid()) {
            continue;
        }
        if (!peer_is_root(peer.get())) {
            continue; // closed unanswered: only root may register sessions
        }
        asio::co_spawn(shared.io, control_peer(shared, std::move(peer)), asio::detached);
    }
}

// Refusals beyond a session's share of records are summed up once their
// window has ended.
awaitable<void> summary_loop(Shared& shared)
{
    asio::steady_timer tick(shared.io);
    for (;;) {
        tick.expires_after(kSummaryInterval);
        beast::error_code ec;
        co_await tick.async_wait(with(ec));
        if (ec) {
            co_return;
        }
        for (auto& [unit, session] : shared.sessions) {
            write_refusal_summaries(*session, false);
        }
    }
}

// What the unit's LimitNOFILE= leaves for client connections after the
// reserve, each of which may hold an upstream connection as well.
std::uint64_t connection_budget()
{
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
        return std::numeric_limits<std::uint64_t>::max() / 2;
    }
    const auto descriptors = static_cast<std::uint64_t>(limit.rlim_cur);
    return descriptors > 2 * kReservedDescriptors ? (descriptors - kReservedDescriptors) / 2 : descriptors / 4;
}

} // namespace

void run_server(sys::UniqueFd control, std::vector<StoredSession> restored, const ServerOptions& options)
{
    std::vector<std::string> problems;
    const CredentialStore credentials(options.credentials_dir, options.credential_prefix, problems);
    for (const auto& problem : problems) {
        std::cerr << "native-runtime-gateway: " << problem << '\n';
    }
    asio::io_context io(1);
    Shared shared{io, ssl::context(ssl::context::tls_client), credentials, {}, {}, std::make_shared<HostLoad>(), 0};
    shared.host_load->max_connections = connection_budget();
    shared.tls.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                           ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    if (options.upstream_ca.empty()) {
        shared.tls.set_default_verify_paths();
    } else {
        // Only this CA: a test's upstream must not be trusted through the
        // system store, nor the system store through a test's CA.
        shared.tls.load_verify_file(options.upstream_ca);
    }
    asio::signal_set signals(io, SIGTERM, SIGINT);
    signals.async_wait([&io](const beast::error_code&, int) { io.stop(); });
    // Before the control socket is read: a revocation the helper sent
    // while the gateway restarted waits there for the session it names.
    for (auto& stored : restored) {
        std::string problem;
        try {
            const auto control_message =
                core::decode_gateway_control(core::upgrade_stored_registration(stored.registration));
            problem = control_message.kind == core::GatewayControl::Kind::Register
                          ? register_session(shared, control_message.session, std::move(stored.listener), stored.name)
                          : "not a registration";
            if (problem.empty()) {
                std::cerr << "native-runtime-gateway: serving " << control_message.session.unit
                          << " again after a restart\n";
            }
        } catch (const std::exception& e) {
            problem = e.what();
        }
        if (!problem.empty()) {
            std::cerr << "native-runtime-gateway: dropped stored session " << stored.name << ": " << problem << '\n';
            forget_session(stored.name);
        }
    }
    std::cerr << "native-runtime-gateway: ready, " << shared.sessions.size()
              << " session(s) restored from systemd's descriptor store, " << credentials.size()
              << " provider key(s), room for " << shared.host_load->max_connections << " client connections"
              << std::endl;
    asio::co_spawn(io, control_loop(shared, std::move(control)), asio::detached);
    asio::co_spawn(io, summary_loop(shared), asio::detached);
    io.run();
    // No refusal leaves the account because the gateway stopped.
    for (auto& [unit, session] : shared.sessions) {
        write_refusal_summaries(*session, true);
    }
}

} // namespace nr::gateway
