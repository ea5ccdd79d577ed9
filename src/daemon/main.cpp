// SPDX-License-Identifier: Apache-2.0
// native-runtimed: bus-activated helper that starts isolated sessions as
// transient systemd services. It holds no state systemd does not also hold,
// so it can exit when idle and be activated again on the next call.

#include "core/base/error.h"
#include "core/base/exit_codes.h"
#include "core/bus/bus_names.h"
#include "core/journal/journal_fields.h"
#include "daemon/file_service.h"
#include "daemon/helper_service.h"
#include "sys/base/journal_writer.h"
#include "sys/bus/bus_compat.h"
#include "sys/bus/bus_loop.h"
#include "sys/host/config_file.h"
#include "version/version.h"

#include <sdbus-c++/sdbus-c++.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <optional>

#ifndef NR_LAUNCHER_PATH
#error "NR_LAUNCHER_PATH must be defined by the build"
#endif

namespace {

// A helper that cannot start is an error in the journal, not an info line
// of its stderr stream; stderr only when it is not the journal already.
void fatal(const std::string& message)
{
    auto record = nr::core::log_record(nr::core::LogEvent::HelperTrouble, "cannot run: " + message);
    record.priority = nr::core::Priority::Error;
    nr::sys::write_log(record);
    if (std::getenv("JOURNAL_STREAM") == nullptr) {
        std::cerr << "native-runtimed: " << message << '\n';
    }
}

// How long the loop may sleep before `wakeup`: rounded up, so that it never
// wakes just before a deadline and spins until it passes. Without one it
// sleeps until a bus event or a signal (poll's longest finite wait).
int wait_ms(std::optional<std::chrono::steady_clock::time_point> wakeup, std::chrono::steady_clock::time_point now)
{
    constexpr auto kForever = std::chrono::milliseconds(std::numeric_limits<int>::max());
    if (!wakeup) {
        return static_cast<int>(kForever.count());
    }
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(*wakeup - now);
    return static_cast<int>(std::clamp(wait, std::chrono::milliseconds(0), kForever).count());
}

enum class LoopEnd { Idle, Stopped };

// Single-threaded, in the manner of systemd's bus-activated helpers: all
// callbacks run here, so the service needs no locks. No tick: the loop
// sleeps until a bus event (systemd's unit signals, a worker leaving the
// bus, a call, an answer) or the service's next deadline. Returns when the
// service has been idle for its timeout, or on SIGTERM or SIGINT.
LoopEnd run_until_idle(sdbus::IConnection& connection, nr::daemon::HelperService& service,
                       const nr::sys::StopSignals& stop)
{
    for (;;) {
        nr::sys::dispatch_pending(connection);
        service.housekeeping();
        const auto now = std::chrono::steady_clock::now();
        if (service.idle(now)) {
            return LoopEnd::Idle;
        }
        if (nr::sys::wait_for_bus_or_signal(connection, stop, wait_ms(service.next_wakeup(now), now),
                                            service.watched_fds())) {
            return LoopEnd::Stopped;
        }
    }
}

// Serves until idle or stopped, then exits the way systemd's own
// bus-activated helpers do: the bus name is released first, so that the
// broker holds new calls for a fresh activation, and the calls that reached
// this instance before the release are answered here. There is no serving
// on after that: systemd stops a Type=dbus unit as soon as its name is gone
// (and queues the next activation behind that stop), so a call that has to
// wait (a start, whose hardening read-back and launcher come later) would be
// cut off halfway. Those are refused with HelperStopping before anything is
// done, and the caller's retry reaches the next instance. Emulated machines
// widened this window enough to hit it.
void serve(sdbus::IConnection& connection, nr::daemon::HelperService& service)
{
    const nr::sys::StopSignals stop({SIGTERM, SIGINT});
    const nr::sys::BusName name{nr::core::kBusName};
    connection.requestName(name);
    service.check_host_before_the_first_call();
    const auto end = run_until_idle(connection, service, stop);
    service.stop_taking_work();
    connection.releaseName(name);
    nr::sys::dispatch_pending(connection);
    service.housekeeping();
    if (end == LoopEnd::Idle && !service.unoccupied()) {
        // Nothing that waits can have been taken since the decision.
        nr::sys::write_log(nr::core::log_record(nr::core::LogEvent::HelperTrouble,
                                                "work arrived as the helper went idle and was cut off"));
    }
}

} // namespace

int main(int argc, char** argv)
{
    const auto version = nr::version::describe("native-runtimed");
    if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
        std::cout << version << '\n';
        return 0;
    }
    if (argc != 1) {
        std::cerr << "usage: native-runtimed [--version]\n";
        return nr::core::kExitUsage;
    }
    // Which build is answering: the first thing an operator needs after an upgrade.
    nr::sys::set_log_identifier("native-runtimed");
    auto started = nr::core::log_record(nr::core::LogEvent::HelperStarted, version + " starting");
    started.fields.emplace_back(nr::core::kFieldVersion, std::string(nr::version::project()));
    nr::sys::write_log(started);
    try {
        const auto config_path = nr::sys::config_path();
        auto config = nr::sys::load_config(config_path);
        auto connection = sdbus::createSystemBusConnection();
        // Files: a second interface on the same object, with its own copy
        // of the configuration.
        nr::daemon::FileService files(*connection, config);
        nr::daemon::HelperService service(*connection, std::move(config), NR_LAUNCHER_PATH, config_path);
        service.adopt_running_sessions();
        serve(*connection, service);
        return 0;
    } catch (const nr::core::Error& e) {
        fatal(std::string(nr::core::error_name(e.kind())) + ": " + e.what());
    } catch (const sdbus::Error& e) {
        fatal(e.getName() + ": " + e.getMessage());
    } catch (const std::exception& e) {
        fatal(e.what());
    }
    return 1;
}
