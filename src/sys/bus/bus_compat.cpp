// SPDX-License-Identifier: Apache-2.0
#include "sys/bus/bus_compat.h"

#include "core/bus/bus_names.h"

#include <utility>

namespace nr::sys {

namespace {

// Calls `read` on the message being dispatched, if there is one.
template <typename Read>
auto read_current_message(const sdbus::IObject& object, Read read)
    -> std::optional<decltype(read(std::declval<const sdbus::Message&>()))>
{
#if NR_SDBUS_CPP_MAJOR >= 2
    const auto message = object.getCurrentlyProcessedMessage();
    if (!message.isValid()) {
        return std::nullopt;
    }
    return read(message);
#else
    const auto* message = object.getCurrentlyProcessedMessage();
    if (message == nullptr) {
        return std::nullopt;
    }
    return read(*message);
#endif
}

// sdbus-c++ keeps the libsystemd message in a protected member (msg_ on
// 1.x and 2.x alike) and has no getter for it; a pointer to that member,
// formed in a derived class, is the one legal way to read it.
struct MessageHandle : sdbus::Message {
    static void* of(const sdbus::Message& message) { return message.*(&MessageHandle::msg_); }
};

} // namespace

#if NR_SDBUS_CPP_MAJOR >= 2

std::string error_name(const CallError& error)
{
    return error ? std::string(error->getName()) : std::string();
}

sdbus::Error bus_error(const std::string& name, const std::string& message)
{
    return sdbus::Error(sdbus::Error::Name{name}, message);
}

std::unique_ptr<sdbus::IProxy> make_proxy(sdbus::IConnection& connection, const std::string& service,
                                          const std::string& path)
{
    return sdbus::createProxy(connection, sdbus::ServiceName{service}, sdbus::ObjectPath{path});
}

void finish_signal_setup(sdbus::IProxy& /*proxy*/) {}

sdbus::Slot add_match(sdbus::IConnection& connection, const std::string& rule, MatchHandler handler)
{
    return connection.addMatch(
        rule, [handler = std::move(handler)](sdbus::Message message) { handler(message); }, sdbus::return_slot);
}

void get_all_async(sdbus::IProxy& proxy, const std::string& interface, GetAllDone done)
{
    (void)proxy.callMethodAsync("GetAll")
        .onInterface("org.freedesktop.DBus.Properties")
        .withArguments(interface)
        .uponReplyInvoke(
            [done = std::move(done)](std::optional<sdbus::Error> error, std::map<std::string, sdbus::Variant> all) {
                done(error ? error->getMessage() : std::string(), std::move(all));
            });
}

void start_transient_unit_async(sdbus::IProxy& proxy, const std::string& interface, const std::string& name,
                                const UnitPropertyList& properties, CallDone done)
{
    const std::vector<sdbus::Struct<std::string, UnitPropertyList>> aux;
    (void)proxy.callMethodAsync("StartTransientUnit")
        .onInterface(interface)
        .withArguments(name, std::string("fail"), properties, aux)
        .uponReplyInvoke([done = std::move(done)](std::optional<sdbus::Error> error, const sdbus::ObjectPath& /*job*/) {
            done(error ? std::string(error->getName()) : std::string(), error ? error->getMessage() : std::string());
        });
}

bool process_pending(sdbus::IConnection& connection)
{
    return connection.processPendingEvent();
}

BusPoll bus_poll(const sdbus::IConnection& connection)
{
    const auto data = connection.getEventLoopPollData();
    return BusPoll{{pollfd{data.fd, data.events, 0}, pollfd{data.eventFd, POLLIN, 0}}, data.getPollTimeout()};
}

#else

std::string error_name(const CallError& error)
{
    return error != nullptr ? error->getName() : std::string();
}

sdbus::Error bus_error(const std::string& name, const std::string& message)
{
    return sdbus::Error(name, message);
}

std::unique_ptr<sdbus::IProxy> make_proxy(sdbus::IConnection& connection, const std::string& service,
                                          const std::string& path)
{
    return sdbus::createProxy(connection, service, path);
}

void finish_signal_setup(sdbus::IProxy& proxy)
{
    proxy.finishRegistration();
}

sdbus::Slot add_match(sdbus::IConnection& connection, const std::string& rule, MatchHandler handler)
{
    return connection.addMatch(rule, std::move(handler));
}

void get_all_async(sdbus::IProxy& proxy, const std::string& interface, GetAllDone done)
{
    (void)proxy.callMethodAsync("GetAll")
        .onInterface("org.freedesktop.DBus.Properties")
        .withArguments(interface)
        .uponReplyInvoke(
            [done = std::move(done)](const sdbus::Error* error, std::map<std::string, sdbus::Variant> all) {
                done(error != nullptr ? error->getMessage() : std::string(), std::move(all));
            });
}

void start_transient_unit_async(sdbus::IProxy& proxy, const std::string& interface, const std::string& name,
                                const UnitPropertyList& properties, CallDone done)
{
    const std::vector<sdbus::Struct<std::string, UnitPropertyList>> aux;
    (void)proxy.callMethodAsync("StartTransientUnit")
        .onInterface(interface)
        .withArguments(name, std::string("fail"), properties, aux)
        .uponReplyInvoke([done = std::move(done)](const sdbus::Error* error, const sdbus::ObjectPath& /*job*/) {
            done(error != nullptr ? error->getName() : std::string(),
                 error != nullptr ? error->getMessage() : std::string());
        });
}

bool process_pending(sdbus::IConnection& connection)
{
    return connection.processPendingRequest();
}

BusPoll bus_poll(const sdbus::IConnection& connection)
{
    const auto data = connection.getEventLoopPollData();
    return BusPoll{{pollfd{data.fd, data.events, 0}}, data.getPollTimeout()};
}

#endif

sdbus::Error to_bus_error(const core::Error& error)
{
    return bus_error(core::bus_error_name(error.kind()), error.what());
}

std::optional<uid_t> caller_uid(const sdbus::IObject& object)
{
    return read_current_message(object, [](const sdbus::Message& message) { return message.getCredsUid(); });
}

std::optional<pid_t> caller_pid(const sdbus::IObject& object)
{
    return read_current_message(object, [](const sdbus::Message& message) { return message.getCredsPid(); });
}

void* current_message_handle(const sdbus::IObject& object)
{
    return read_current_message(object, [](const sdbus::Message& message) { return MessageHandle::of(message); })
        .value_or(nullptr);
}

std::optional<std::string> caller_bus_name(const sdbus::IObject& object)
{
    return read_current_message(object, [](const sdbus::Message& message) { return std::string(message.getSender()); });
}

} // namespace nr::sys
