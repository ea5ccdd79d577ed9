// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the gateway's event loop holds: every registered session with its
// listener, its limits and its counts, and what all sessions share (the
// TLS context, the keys, the owners' budgets, the host's descriptor
// budget). One thread; nothing here is locked.

// clang-format off
#include "gateway/asio_config.h"
// clang-format on

#include "core/gateway/egress.h"
#include "core/gateway/gateway_log.h"
#include "core/gateway/refusal_tally.h"
#include "core/gateway/request_budget.h"
#include "gateway/credential_store.h"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>

#include <chrono>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>

namespace nr::gateway {

class Connection;

using Clock = std::chrono::steady_clock;

std::uint64_t steady_now_usec();

struct Session {
    core::GatewaySession config;
    boost::asio::ip::tcp::acceptor acceptor;
    std::uint16_t port = 0;
    core::GatewayCounters counters;
    std::list<std::weak_ptr<Connection>> connections;
    bool revoked = false;
    std::string stored_as; // its name in systemd's descriptor store, if kept there
    // What this session's connections hold at this moment.
    std::uint64_t open_connections = 0;
    std::uint64_t open_tunnels = 0;
    std::uint64_t buffered_bytes = 0;
    core::RefusalTally refusal_records;

    Session(boost::asio::io_context& io, core::GatewaySession session) : config(std::move(session)), acceptor(io) {}

    // Takes `bytes` of the session's memory allowance; false (nothing
    // taken) when that would pass max_buffered_bytes.
    bool reserve(std::uint64_t bytes);
    void release(std::uint64_t bytes);
};

// Client connections of all sessions, against the descriptors the unit's
// LimitNOFILE= leaves after a reserve (each may hold an upstream
// connection too). Shared with every connection, which may outlive the
// event loop's other state at shutdown.
struct HostLoad {
    std::uint64_t open_connections = 0;
    std::uint64_t max_connections = 0;
};

struct Shared {
    boost::asio::io_context& io;
    boost::asio::ssl::context tls;
    const CredentialStore& credentials;
    std::map<std::string, std::shared_ptr<Session>> sessions;
    // Per owner, across the owner's sessions; held in memory only, so a
    // restart of the gateway starts every owner's window afresh.
    core::RequestBudget budget;
    std::shared_ptr<HostLoad> host_load = std::make_shared<HostLoad>();
    std::size_t stored_sessions = 0; // kept in systemd's descriptor store
};

// The session's record of a refusal, or only its count when the session
// has had its share of records in this window (a flood of refusals must
// not push the records of relayed requests out of the journal).
void record_refusal(Session& session, const core::GatewayExchange& exchange);

// Writes every summary whose window has ended (called once a second), or
// every pending one when `all`.
void write_refusal_summaries(Session& session, bool all);

// A session's share of memory for as long as this object lives.
class Reservation {
public:
    Reservation(Session& session, std::uint64_t bytes) : session_(session), granted_(session.reserve(bytes))
    {
        bytes_ = granted_ ? bytes : 0;
    }
    Reservation(const Reservation&) = delete;
    Reservation& operator=(const Reservation&) = delete;
    ~Reservation() { session_.release(bytes_); }

    bool granted() const { return granted_; }
    // Grows (or shrinks) what is held to `bytes`; false, holding what it
    // held, when the session's allowance has no room.
    bool resize(std::uint64_t bytes);

private:
    Session& session_;
    bool granted_ = false;
    std::uint64_t bytes_ = 0;
};

} // namespace nr::gateway
