// SPDX-License-Identifier: Apache-2.0
#pragma once
// Thin client for the parts of org.freedesktop.systemd1 the helper and CLI
// use. Property values are marshalled from the core's typed list; nothing
// here decides policy.

#include <sdbus-c++/sdbus-c++.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/launch/spec_delivery.h"
#include "core/plan/unit_properties.h"

namespace nr::sys {

inline constexpr const char* kSystemdService = "org.freedesktop.systemd1";
inline constexpr const char* kSystemdPath = "/org/freedesktop/systemd1";
inline constexpr const char* kManagerInterface = "org.freedesktop.systemd1.Manager";
inline constexpr const char* kUnitInterface = "org.freedesktop.systemd1.Unit";
inline constexpr const char* kServiceInterface = "org.freedesktop.systemd1.Service";

struct UnitEnd {
    std::string result;
    std::int32_t code = 0;
    std::int32_t status = 0;
    // What systemd still knows of the finished unit, when it has it (not
    // every version has MemoryPeak; cgroup v1 has no peak at all).
    std::optional<std::uint64_t> runtime_usec;
    std::optional<std::uint64_t> memory_peak_bytes;
    std::optional<std::uint64_t> tasks_peak;
    std::optional<std::uint64_t> cpu_usage_nsec;
};

struct ListedUnit {
    std::string name;
    std::string active_state;
    sdbus::ObjectPath path;
};

// systemd's object path for a unit name (sd_bus_path_encode under
// /org/freedesktop/systemd1/unit), valid before the unit exists.
sdbus::ObjectPath unit_object_path(const std::string& unit_name);

// The descriptors a unit's properties refer to: stdio for the
// Standard*FileDescriptor slots, and the unit's end of the helper channel
// for an ExtraFileDescriptors= slot (-1 when none is planned; a planned
// slot without one refuses the start, SystemdFailure).
struct UnitDescriptors {
    std::array<sdbus::UnixFd, 3> stdio;
    int helper_channel = -1;
};

// StartTransientUnit exactly as SystemdManager::start_transient sends it,
// without waiting for systemd's answer, so the single-threaded helper can
// start other units meanwhile. ready() once systemd answered; result() then
// returns, or throws what start_transient would have. It owns its proxy:
// destroying it first cancels the call.
class TransientStart {
public:
    TransientStart(sdbus::IConnection& connection, std::string name, const core::UnitProperties& properties,
                   const UnitDescriptors& descriptors);
    TransientStart(const TransientStart&) = delete;
    TransientStart& operator=(const TransientStart&) = delete;
    TransientStart(TransientStart&&) = delete;
    TransientStart& operator=(TransientStart&&) = delete;
    ~TransientStart() = default;

    [[nodiscard]] bool ready() const { return answered_; }
    void result() const;

private:
    std::string name_;
    bool answered_ = false;
    std::string error_name_;
    std::string error_message_;
    // Last, so it goes first: its destruction cancels the call whose reply
    // would write to the members above.
    std::unique_ptr<sdbus::IProxy> manager_;
};

class SystemdManager {
public:
    explicit SystemdManager(sdbus::IConnection& connection);

    // Starts a transient unit in "fail" mode, with `descriptors` in the
    // properties' descriptor slots. Throws core::Error(SessionBusy) when the
    // unit already exists, core::Error(SystemdFailure) otherwise.
    void start_transient(const std::string& name, const core::UnitProperties& properties,
                         const UnitDescriptors& descriptors);

    // Queues a stop job; throws NoSuchSession when the unit is not loaded.
    void stop(const std::string& name);

    std::optional<sdbus::ObjectPath> unit_path(const std::string& name);

    // LoadUnit: the unit's path, loading it (or its not-found stub) first.
    sdbus::ObjectPath load_unit(const std::string& name);

    // daemon-reload; systemd answers once the reload is complete.
    void reload();

    // Takes a reference that keeps the unit loaded after it stops.
    void ref(const sdbus::ObjectPath& unit_path);

    // Drops the reference taken with AddRef= so the unit can be collected.
    void unref(const sdbus::ObjectPath& unit_path);

    // Asks systemd to emit unit signals on the API bus.
    void subscribe();

    std::vector<ListedUnit> list_units(const std::vector<std::string>& patterns);

    sdbus::Variant unit_property(const sdbus::ObjectPath& path, const std::string& interface, const std::string& name);
    // Every property of `interface` in one round trip (and one snapshot).
    std::map<std::string, sdbus::Variant> unit_properties(const sdbus::ObjectPath& path, const std::string& interface);
    // How launchers get their spec on this systemd (core/launch/spec_delivery.h),
    // from its Version, read once; Claim when the version cannot be read,
    // since every supported systemd serves that path.
    core::SpecDelivery spec_delivery();

    // A property of the manager object itself, e.g. "Version".
    sdbus::Variant manager_property(const std::string& name);
    UnitEnd read_end(const sdbus::ObjectPath& path);
    // Whether the unit has ended (core::unit_has_ended), its properties
    // read in the order that rule needs. Throws SystemdFailure.
    bool unit_ended(const sdbus::ObjectPath& path);
    // LogExtraFields of a service unit as NAME=value strings.
    std::vector<std::string> log_extra_fields(const sdbus::ObjectPath& path);

private:
    std::unique_ptr<sdbus::IProxy> unit_proxy(const sdbus::ObjectPath& path);

    sdbus::IConnection& connection_;
    std::unique_ptr<sdbus::IProxy> manager_;
    std::optional<core::SpecDelivery> spec_delivery_;
};

} // namespace nr::sys
