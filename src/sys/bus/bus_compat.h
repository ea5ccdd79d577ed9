// SPDX-License-Identifier: Apache-2.0
#pragma once
// The few places where sdbus-c++ 1.x (Debian 12) and 2.x (Debian 13) differ
// in what this project uses. Everything else calls these instead of the
// library, so the version test (NR_SDBUS_CPP_MAJOR, set by the build from the
// installed sdbus-c++) stays in this file pair.

#include <sdbus-c++/sdbus-c++.h>

#include "core/base/error.h"

#include <poll.h>
#include <sys/types.h>

#include <functional>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#ifndef NR_SDBUS_CPP_MAJOR
#error "NR_SDBUS_CPP_MAJOR must be defined by the build"
#endif

namespace nr::sys {

// What the library takes as a bus name (requestName, generated proxies): a
// plain string on 1.x, the strong type sdbus::ServiceName on 2.x.
#if NR_SDBUS_CPP_MAJOR >= 2
using BusName = sdbus::ServiceName;
#else
using BusName = std::string;
#endif

// What an asynchronous call's reply handler gets as its error: a pointer
// that is null on success on 1.x, an optional on 2.x. A handler takes it as
// its first parameter and reads it with error_name().
#if NR_SDBUS_CPP_MAJOR >= 2
using CallError = std::optional<sdbus::Error>;
#else
using CallError = const sdbus::Error*;
#endif
// The error's D-Bus name; empty when the call succeeded.
std::string error_name(const CallError& error);

// A D-Bus error reply named `name` (2.x wants the strong type Error::Name).
sdbus::Error bus_error(const std::string& name, const std::string& message);

// The helper's typed reply for a core error: org.metis.NativeRuntime1.Error.<Kind>.
sdbus::Error to_bus_error(const core::Error& error);

// A proxy for `path` at `service` that uses `connection` (and its loop).
std::unique_ptr<sdbus::IProxy> make_proxy(sdbus::IConnection& connection, const std::string& service,
                                          const std::string& path);

// Subscribes the signal handlers added with uponSignal() so far: 1.x needs
// this step, 2.x subscribes each handler as it is added.
void finish_signal_setup(sdbus::IProxy& proxy);

// Installs the match rule `rule` on `connection` (the broker has confirmed
// it when this returns) and calls `handler` for each message it matches,
// while the connection dispatches; the rule goes when the slot is dropped,
// which must happen before the connection goes. 1.x hands the handler a
// reference to the message, 2.x a copy.
using MatchHandler = std::function<void(sdbus::Message& message)>;
[[nodiscard]] sdbus::Slot add_match(sdbus::IConnection& connection, const std::string& rule, MatchHandler handler);

// org.freedesktop.DBus.Properties.GetAll(`interface`) on `proxy`, without
// waiting: `done` runs later, from process_pending(), with the properties and
// an empty error, or with the error's message. Destroying the proxy first
// cancels the call (`done` never runs).
using GetAllDone = std::function<void(const std::string& error, std::map<std::string, sdbus::Variant> all)>;
void get_all_async(sdbus::IProxy& proxy, const std::string& interface, GetAllDone done);

// systemd's StartTransientUnit(name, "fail", properties, no aux units) on
// the manager `proxy`, without waiting: `done` runs later, from
// process_pending(), with the error's name and message, both empty when
// systemd accepted it. Destroying the proxy first cancels the call.
using UnitPropertyList = std::vector<sdbus::Struct<std::string, sdbus::Variant>>;
using CallDone = std::function<void(const std::string& error_name, const std::string& error_message)>;
void start_transient_unit_async(sdbus::IProxy& proxy, const std::string& interface, const std::string& name,
                                const UnitPropertyList& properties, CallDone done);

// Handles one pending bus event; false when nothing is pending.
bool process_pending(sdbus::IConnection& connection);

// What to poll(2) before the next process_pending(): the connection's
// descriptors (the bus socket and, on 2.x, the library's wake-up eventfd)
// and the longest wait in milliseconds, -1 for none.
struct BusPoll {
    std::vector<pollfd> fds;
    int timeout_ms = -1;
};
BusPoll bus_poll(const sdbus::IConnection& connection);

// Who sent the method call `object` is dispatching, as the bus reports it
// (never the payload); nullopt outside a method handler.
std::optional<uid_t> caller_uid(const sdbus::IObject& object);
std::optional<pid_t> caller_pid(const sdbus::IObject& object);
std::optional<std::string> caller_bus_name(const sdbus::IObject& object);
// The libsystemd message (sd_bus_message*) of the call `object` is
// dispatching, for the few questions sdbus-c++ has no accessor for (the
// ALLOW_INTERACTIVE_AUTHORIZATION flag); valid only while the handler
// runs, nullptr outside one.
void* current_message_handle(const sdbus::IObject& object);

} // namespace nr::sys
