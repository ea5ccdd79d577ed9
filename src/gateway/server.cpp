// SPDX-License-Identifier: Apache-2.0
// clang-format off
#include "gateway/asio_config.h"
// clang-format on
#include "gateway/server.h"

#include "core/gateway/egress.h"
#include "gateway/connection.h"
#include "gateway/control.h"
#include "gateway/credential_store.h"
#include "gateway/listener.h"
#include "gateway/session.h"
#include "gateway/session_store.h"

#include <iostream>
#include <limits>
#include <sys/resource.h>

namespace nr::gateway {

namespace {

namespace ssl = asio::ssl;
using asio::awaitable;

// Descriptors the gateway keeps for itself whatever the sessions do: the
// control socket and its peers, the journal, the resolver, the listeners.
constexpr std::uint64_t kReservedDescriptors = 1024;
constexpr auto kSummaryInterval = std::chrono::seconds(1);

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
