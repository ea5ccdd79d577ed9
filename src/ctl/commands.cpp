// SPDX-License-Identifier: Apache-2.0
#include "ctl/commands.h"

#include "core/base/error.h"
#include "core/base/unit_name.h"
#include "core/bus/bus_names.h"
#include "core/bus/match_rules.h"
#include "core/cli/cli_input.h"
#include "core/cli/liveness_schedule.h"
#include "ctl/exit_status.h"
#include "ctl/helper_retry.h"
#include "ctl/unit_stop_wait.h"
#include "sys/bus/bus_compat.h"
#include "sys/bus/bus_loop.h"
#include "sys/systemd/systemd_manager.h"

#include <sdbus-c++/sdbus-c++.h>

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <utility>

namespace nr::ctl {

namespace {

struct Ended {
    std::string result;
    std::int32_t code = 0;
    std::int32_t status = 0;
};

// How long `run` waits for the helper to answer StartSession. sd-bus's
// default, 25 s, is shorter than a start can take when many begin at once on
// a loaded host (each waits for its place in the helper and for systemd's
// job); the helper bounds what follows itself (a launcher that has not
// claimed its spec within 120 s is stopped).
constexpr std::chrono::seconds kStartSessionTimeout{120};

// The helper's Manager interface for calls only: the generated proxy would
// also subscribe to every session's signals.
class Manager {
public:
    explicit Manager(sdbus::IConnection& connection)
        : proxy_(sys::make_proxy(connection, core::kBusName, core::kObjectPath))
    {
    }

    std::string start(const RunOptions& options, const std::map<std::string, std::string>& env)
    {
        std::string unit;
        sdbus::ObjectPath path;
        call_helper([&] {
            proxy_->callMethod("StartSession")
                .onInterface(core::kManagerInterface)
                .withTimeout(std::chrono::duration_cast<std::chrono::microseconds>(kStartSessionTimeout))
                .withArguments(options.owner, options.chat, options.job, options.adapter, options.command,
                               options.workspace, env, options.run_as, sdbus::UnixFd(STDIN_FILENO),
                               sdbus::UnixFd(STDOUT_FILENO), sdbus::UnixFd(STDERR_FILENO))
                .storeResultsTo(unit, path);
        });
        return unit;
    }

    void stop(const std::string& owner, const std::string& chat)
    {
        call_helper(
            [&] { proxy_->callMethod("StopSession").onInterface(core::kManagerInterface).withArguments(owner, chat); });
    }

private:
    std::unique_ptr<sdbus::IProxy> proxy_;
};

// The end and the admission wait of one session, from the helper's signals
// about that session only (core::session_signals_match): when every CLI
// received every session's signals, N waiting CLIs cost N^2 deliveries and
// wake-ups. The match is in place once the constructor returns, so the
// caller subscribes before it starts the session and misses no instant end.
class SessionSignals {
public:
    SessionSignals(sdbus::IConnection& connection, const RunOptions& options, std::string unit)
        : unit_(std::move(unit)), quiet_(options.quiet),
          match_(sys::add_match(connection, core::session_signals_match(options.owner, options.chat),
                                [this](sdbus::Message& message) { received(message); }))
    {
    }

    [[nodiscard]] const std::optional<Ended>& ended() const { return ended_; }

private:
    void received(sdbus::Message& message)
    {
        const std::string member = message.getMemberName();
        std::string unit;
        std::string owner;
        std::string chat;
        std::string job;
        try {
            message >> unit >> owner >> chat >> job;
            if (unit != unit_) {
                return;
            }
            if (member == "SessionEnded") {
                Ended end;
                message >> end.result >> end.code >> end.status;
                ended_ = end;
            } else if (member == "SessionWaiting") {
                std::uint32_t ahead = 0;
                message >> ahead;
                report_wait(ahead);
            }
        } catch (const sdbus::Error&) {
            // Not the signature the helper sends: nothing to learn from it.
        }
    }

    // The session waits for its turn on a shared host login; say so, since
    // a silent wait looks like a hang.
    void report_wait(std::uint32_t ahead) const
    {
        if (quiet_) {
            return;
        }
        if (ahead == 0) {
            std::cerr << "native-runtimectl: admitted after waiting for host-auth admission\n";
        } else {
            std::cerr << "native-runtimectl: waiting for host-auth admission, " << ahead << " ahead\n";
        }
    }

    std::string unit_;
    bool quiet_;
    std::optional<Ended> ended_;
    // Last, so it goes first: no callback runs against a destroyed member.
    sdbus::Slot match_;
};

std::map<std::string, std::string> environment_from(const std::vector<std::string>& items)
{
    std::map<std::string, std::string> env;
    for (const auto& item : items) {
        core::validate_env_argument(item);
        const auto eq = item.find('=');
        if (eq != std::string::npos) {
            env[item.substr(0, eq)] = item.substr(eq + 1);
            continue;
        }
        // NAME alone copies the value from our environment, which keeps
        // secrets off this process's argv.
        const char* value = std::getenv(item.c_str());
        if (value == nullptr) {
            core::fail(core::ErrorKind::InvalidArgument, "--env " + item + ": not set in the environment");
        }
        core::validate_bus_string("--env " + item + "'s value", value);
        env[item] = value;
    }
    return env;
}

// Whether the helper's bus name changed owner. Subscribed before
// StartSession: the helper that answered it holds the unit's reference and
// will report its end, so only a change of owner after that can lose it.
class HelperOwner {
public:
    explicit HelperOwner(sdbus::IConnection& connection)
        : match_(sys::add_match(connection, core::name_owner_changes_match(core::kBusName),
                                [this](sdbus::Message& /*message*/) { changed_ = true; }))
    {
    }

    // Whether it changed since the last call.
    bool take_change() { return std::exchange(changed_, false); }

private:
    bool changed_ = false;
    // Last, so it goes first: no callback runs against a destroyed member.
    sdbus::Slot match_;
};

// A helper that crashed or was stopped mid-session can no longer report
// the end; a new instance adopts running sessions from systemd, so start
// one (bus activation) instead of waiting for a signal nobody will send.
void revive_helper_if_gone(sdbus::IProxy& bus)
{
    bool present = true;
    bus.callMethod("NameHasOwner")
        .onInterface("org.freedesktop.DBus")
        .withArguments(core::kBusName)
        .storeResultsTo(present);
    if (!present) {
        std::uint32_t reply = 0;
        bus.callMethod("StartServiceByName")
            .onInterface("org.freedesktop.DBus")
            .withArguments(core::kBusName, std::uint32_t{0})
            .storeResultsTo(reply);
    }
}

} // namespace

int run_session(const RunOptions& options)
{
    // Everything the command line holds is checked while parsing; the
    // environment copied for --env NAME only now, still before any call.
    const auto env = environment_from(options.env);
    auto connection = sdbus::createSystemBusConnection();
    // Subscribe before starting, so even an instant exit is not missed.
    SessionSignals session(*connection, options, core::session_unit_name(options.owner, options.chat));
    HelperOwner helper(*connection);
    const sys::StopSignals stop({SIGINT, SIGTERM, SIGHUP});
    Manager manager(*connection);
    const auto unit = manager.start(options, env);
    if (!options.quiet) {
        // As systemd-run says it: the name to give systemctl and journalctl.
        std::cerr << "Running as unit: " << unit << '\n';
    }
    auto bus = sys::make_proxy(*connection, "org.freedesktop.DBus", "/org/freedesktop/DBus");
    sys::SystemdManager systemd(*connection);
    bool stop_requested = false;
    core::LivenessSchedule liveness(std::chrono::steady_clock::now());
    for (;;) {
        sys::dispatch_pending(*connection);
        if (session.ended()) {
            break;
        }
        // Asked only when the helper changed or as a safety net
        // (core::LivenessSchedule), and waiting in between without a
        // tick: every waiting CLI paid for each wake-up and each check.
        if (!liveness.due(helper.take_change(), std::chrono::steady_clock::now())) {
            const auto wait = liveness.wait(std::chrono::steady_clock::now());
            if (sys::wait_for_bus_or_signal(*connection, stop, static_cast<int>(wait.count())) && !stop_requested) {
                stop_requested = true;
                manager.stop(options.owner, options.chat);
            }
            continue;
        }
        revive_helper_if_gone(*bus);
        // A failed GetUnit throws core::Error(SystemdFailure), which
        // guarded() reports as "unavailable" (69).
        if (!systemd.unit_path(unit)) {
            // The GetUnit call may have queued the end signal without
            // dispatching it; only a unit that is gone with no end
            // reported means the helper holding it died.
            sys::dispatch_pending(*connection);
            if (!session.ended()) {
                std::cerr << "native-runtimectl: the session ended but its result was lost\n";
                return core::kExitEndLost;
            }
        }
    }
    const auto& end = *session.ended();
    return core::session_exit_status(end.result, end.code, end.status);
}

int stop_session(const StopOptions& options)
{
    auto connection = sdbus::createSystemBusConnection();
    if (options.no_block) {
        Manager(*connection).stop(options.owner, options.chat);
        return 0;
    }
    // Watching before the stop is asked for, so no change is missed.
    UnitStopWait stopped(*connection, core::session_unit_name(options.owner, options.chat));
    Manager(*connection).stop(options.owner, options.chat);
    stopped.wait();
    return 0;
}

} // namespace nr::ctl
