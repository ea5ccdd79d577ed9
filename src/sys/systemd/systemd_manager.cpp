// SPDX-License-Identifier: Apache-2.0
#include "sys/systemd/systemd_manager.h"

#include "core/base/error.h"
#include "core/base/unit_state.h"
#include "sys/bus/bus_compat.h"

#include <systemd/sd-bus.h>

#include <cstdlib>
#include <limits>

namespace nr::sys {

namespace {

using core::ErrorKind;
using core::fail;

using ExecList = std::vector<sdbus::Struct<std::string, std::vector<std::string>, bool>>;

using PassedList = std::vector<sdbus::Struct<sdbus::UnixFd, std::string>>;

struct VariantOf {
    const UnitDescriptors& descriptors;

    sdbus::Variant operator()(bool v) const { return sdbus::Variant(v); }
    sdbus::Variant operator()(std::uint64_t v) const { return sdbus::Variant(v); }
    sdbus::Variant operator()(const std::string& v) const { return sdbus::Variant(v); }
    sdbus::Variant operator()(const std::vector<std::string>& v) const { return sdbus::Variant(v); }
    sdbus::Variant operator()(const core::ExecCommand& v) const
    {
        return sdbus::Variant(ExecList{{v.path, v.argv, false}});
    }
    sdbus::Variant operator()(core::StdioSlot slot) const
    {
        return sdbus::Variant(descriptors.stdio.at(static_cast<std::size_t>(slot)));
    }
    sdbus::Variant operator()(const core::PassedDescriptorSlot& slot) const
    {
        if (descriptors.helper_channel < 0) {
            fail(ErrorKind::SystemdFailure, "no descriptor to pass as " + slot.name);
        }
        return sdbus::Variant(PassedList{{sdbus::UnixFd(descriptors.helper_channel), slot.name}});
    }
    sdbus::Variant operator()(const core::AddressList& v) const
    {
        std::vector<sdbus::Struct<std::int32_t, std::vector<std::uint8_t>, std::uint32_t>> list;
        list.reserve(v.prefixes.size());
        for (const auto& prefix : v.prefixes) {
            list.emplace_back(prefix.family, prefix.bytes, prefix.length);
        }
        return sdbus::Variant(list);
    }
    sdbus::Variant operator()(const core::NameList& v) const
    {
        return sdbus::Variant(sdbus::Struct<bool, std::vector<std::string>>{v.allow_list, v.names});
    }
    sdbus::Variant operator()(const core::ErrorNumber& v) const { return sdbus::Variant(v.value); }
    sdbus::Variant operator()(const core::JournalFields& v) const
    {
        std::vector<std::vector<std::uint8_t>> fields;
        fields.reserve(v.fields.size());
        for (const auto& field : v.fields) {
            fields.emplace_back(field.begin(), field.end());
        }
        return sdbus::Variant(fields);
    }
};

} // namespace

sdbus::ObjectPath unit_object_path(const std::string& unit_name)
{
    char* encoded = nullptr;
    if (sd_bus_path_encode("/org/freedesktop/systemd1/unit", unit_name.c_str(), &encoded) < 0 || encoded == nullptr) {
        fail(ErrorKind::SystemdFailure, "cannot encode the object path of " + unit_name);
    }
    sdbus::ObjectPath path(encoded);
    std::free(encoded); // NOLINT(cppcoreguidelines-no-malloc): owned by libsystemd
    return path;
}

SystemdManager::SystemdManager(sdbus::IConnection& connection)
    : connection_(connection), manager_(make_proxy(connection, kSystemdService, kSystemdPath))
{
}

namespace {

// The property list StartTransientUnit takes, with AddRef: it keeps the
// unit loaded after it stops until the helper read its result and called
// Unref; without it CollectMode would drop the exit status.
UnitPropertyList transient_properties(const core::UnitProperties& properties, const UnitDescriptors& descriptors)
{
    UnitPropertyList list;
    list.reserve(properties.size() + 1);
    for (const auto& property : properties) {
        list.emplace_back(property.name, std::visit(VariantOf{descriptors}, property.value));
    }
    list.emplace_back("AddRef", sdbus::Variant(true));
    return list;
}

[[noreturn]] void refuse_start(const std::string& name, const std::string& error_name, const std::string& message)
{
    if (error_name == "org.freedesktop.systemd1.UnitExists") {
        fail(ErrorKind::SessionBusy, "a session for this owner and chat is already running (" + name + ")");
    }
    fail(ErrorKind::SystemdFailure, "systemd refused to start " + name + ": " + message);
}

} // namespace

void SystemdManager::start_transient(const std::string& name, const core::UnitProperties& properties,
                                     const UnitDescriptors& descriptors)
{
    const std::vector<sdbus::Struct<std::string, UnitPropertyList>> aux;
    sdbus::ObjectPath job;
    try {
        manager_->callMethod("StartTransientUnit")
            .onInterface(kManagerInterface)
            .withArguments(name, std::string("fail"), transient_properties(properties, descriptors), aux)
            .storeResultsTo(job);
    } catch (const sdbus::Error& e) {
        refuse_start(name, e.getName(), e.getMessage());
    }
}

TransientStart::TransientStart(sdbus::IConnection& connection, std::string name, const core::UnitProperties& properties,
                               const UnitDescriptors& descriptors)
    : name_(std::move(name)), manager_(make_proxy(connection, kSystemdService, kSystemdPath))
{
    try {
        // Runs from dispatch: only records the answer.
        start_transient_unit_async(*manager_, kManagerInterface, name_, transient_properties(properties, descriptors),
                                   [this](const std::string& error_name, const std::string& error_message) {
                                       error_name_ = error_name;
                                       error_message_ = error_message;
                                       answered_ = true;
                                   });
    } catch (const sdbus::Error& e) {
        error_name_ = e.getName();
        error_message_ = e.getMessage();
        answered_ = true;
    }
}

void TransientStart::result() const
{
    if (!error_name_.empty()) {
        refuse_start(name_, error_name_, error_message_);
    }
}

void SystemdManager::stop(const std::string& name)
{
    sdbus::ObjectPath job;
    try {
        manager_->callMethod("StopUnit")
            .onInterface(kManagerInterface)
            .withArguments(name, std::string("replace"))
            .storeResultsTo(job);
    } catch (const sdbus::Error& e) {
        if (e.getName() == "org.freedesktop.systemd1.NoSuchUnit") {
            fail(ErrorKind::NoSuchSession, "no session unit " + name);
        }
        fail(ErrorKind::SystemdFailure, "systemd refused to stop " + name + ": " + e.getMessage());
    }
}

std::optional<sdbus::ObjectPath> SystemdManager::unit_path(const std::string& name)
{
    sdbus::ObjectPath path;
    try {
        manager_->callMethod("GetUnit").onInterface(kManagerInterface).withArguments(name).storeResultsTo(path);
    } catch (const sdbus::Error& e) {
        if (e.getName() == "org.freedesktop.systemd1.NoSuchUnit") {
            return std::nullopt;
        }
        fail(ErrorKind::SystemdFailure, "GetUnit " + name + ": " + e.getMessage());
    }
    return path;
}

sdbus::ObjectPath SystemdManager::load_unit(const std::string& name)
{
    sdbus::ObjectPath path;
    try {
        manager_->callMethod("LoadUnit").onInterface(kManagerInterface).withArguments(name).storeResultsTo(path);
    } catch (const sdbus::Error& e) {
        fail(ErrorKind::SystemdFailure, "LoadUnit " + name + ": " + e.getMessage());
    }
    return path;
}

void SystemdManager::reload()
{
    try {
        // A reload of a big unit set can take longer than sd-bus's default
        // 25 s call timeout.
        constexpr std::uint64_t kReloadTimeoutUsec = 120ULL * 1000 * 1000;
        manager_->callMethod("Reload").onInterface(kManagerInterface).withTimeout(kReloadTimeoutUsec);
    } catch (const sdbus::Error& e) {
        fail(ErrorKind::SystemdFailure, "daemon-reload: " + e.getName() + ": " + e.getMessage());
    }
}

std::unique_ptr<sdbus::IProxy> SystemdManager::unit_proxy(const sdbus::ObjectPath& path)
{
    return make_proxy(connection_, kSystemdService, path);
}

void SystemdManager::ref(const sdbus::ObjectPath& unit_path)
{
    auto unit = unit_proxy(unit_path);
    try {
        unit->callMethod("Ref").onInterface(kUnitInterface);
    } catch (const sdbus::Error& e) {
        fail(ErrorKind::SystemdFailure, "Ref " + std::string(unit_path) + ": " + e.getMessage());
    }
}

void SystemdManager::unref(const sdbus::ObjectPath& unit_path)
{
    auto unit = unit_proxy(unit_path);
    try {
        unit->callMethod("Unref").onInterface(kUnitInterface);
    } catch (const sdbus::Error&) {
        // Already collected: nothing left to release.
    }
}

void SystemdManager::subscribe()
{
    try {
        manager_->callMethod("Subscribe").onInterface(kManagerInterface);
    } catch (const sdbus::Error& e) {
        // systemd answers AlreadySubscribed for a second call on one connection.
        if (e.getName() != "org.freedesktop.systemd1.AlreadySubscribed") {
            fail(ErrorKind::SystemdFailure, "Subscribe: " + e.getMessage());
        }
    }
}

std::vector<ListedUnit> SystemdManager::list_units(const std::vector<std::string>& patterns)
{
    using Row = sdbus::Struct<std::string, std::string, std::string, std::string, std::string, std::string,
                              sdbus::ObjectPath, std::uint32_t, std::string, sdbus::ObjectPath>;
    std::vector<Row> rows;
    try {
        manager_->callMethod("ListUnitsByPatterns")
            .onInterface(kManagerInterface)
            .withArguments(std::vector<std::string>{}, patterns)
            .storeResultsTo(rows);
    } catch (const sdbus::Error& e) {
        fail(ErrorKind::SystemdFailure, "ListUnitsByPatterns: " + e.getMessage());
    }
    std::vector<ListedUnit> out;
    out.reserve(rows.size());
    for (const auto& row : rows) {
        out.push_back({row.get<0>(), row.get<3>(), row.get<6>()});
    }
    return out;
}

sdbus::Variant SystemdManager::unit_property(const sdbus::ObjectPath& path, const std::string& interface,
                                             const std::string& name)
{
    auto unit = unit_proxy(path);
    try {
        return unit->getProperty(name).onInterface(interface);
    } catch (const sdbus::Error& e) {
        fail(ErrorKind::SystemdFailure, "reading " + name + " of " + std::string(path) + ": " + e.getMessage());
    }
}

std::map<std::string, sdbus::Variant> SystemdManager::unit_properties(const sdbus::ObjectPath& path,
                                                                      const std::string& interface)
{
    auto unit = unit_proxy(path);
    std::map<std::string, sdbus::Variant> all;
    try {
        unit->callMethod("GetAll")
            .onInterface("org.freedesktop.DBus.Properties")
            .withArguments(interface)
            .storeResultsTo(all);
    } catch (const sdbus::Error& e) {
        fail(ErrorKind::SystemdFailure, "reading the properties of " + std::string(path) + ": " + e.getMessage());
    }
    return all;
}

namespace {

// `name` of `all` as T; SystemdFailure when systemd did not report it.
template <typename T>
T required(const std::map<std::string, sdbus::Variant>& all, const std::string& name, const sdbus::ObjectPath& path)
{
    const auto found = all.find(name);
    if (found == all.end()) {
        fail(ErrorKind::SystemdFailure, "systemd reports no " + name + " for " + std::string(path));
    }
    try {
        return found->second.get<T>();
    } catch (const sdbus::Error& e) {
        fail(ErrorKind::SystemdFailure, "reading " + name + " of " + std::string(path) + ": " + e.getMessage());
    }
}

} // namespace

bool SystemdManager::unit_ended(const sdbus::ObjectPath& path)
{
    // One GetAll: the timestamp and the state come from the same moment,
    // which is what core::unit_has_ended needs (see there).
    const auto all = unit_properties(path, kUnitInterface);
    return core::unit_has_ended(required<std::string>(all, "ActiveState", path),
                                required<std::uint64_t>(all, "InactiveExitTimestampMonotonic", path));
}

core::SpecDelivery SystemdManager::spec_delivery()
{
    if (!spec_delivery_) {
        try {
            spec_delivery_ = core::spec_delivery_for(manager_property("Version").get<std::string>());
        } catch (const core::Error&) {
            spec_delivery_ = core::SpecDelivery::Claim;
        } catch (const sdbus::Error&) {
            spec_delivery_ = core::SpecDelivery::Claim;
        }
    }
    return *spec_delivery_;
}

sdbus::Variant SystemdManager::manager_property(const std::string& name)
{
    try {
        return manager_->getProperty(name).onInterface(kManagerInterface);
    } catch (const sdbus::Error& e) {
        fail(ErrorKind::SystemdFailure, "reading manager property " + name + ": " + e.getMessage());
    }
}

UnitEnd SystemdManager::read_end(const sdbus::ObjectPath& path)
{
    // One round trip, not one per property: at the end of a burst PID 1
    // answers each call only between spawning other units.
    const auto all = unit_properties(path, kServiceInterface);
    UnitEnd end;
    end.result = required<std::string>(all, "Result", path);
    end.code = required<std::int32_t>(all, "ExecMainCode", path);
    end.status = required<std::int32_t>(all, "ExecMainStatus", path);
    // Accounting values: absent properties and systemd's "unknown"
    // (UINT64_MAX) both leave the field empty.
    const auto counter = [&](const char* name) -> std::optional<std::uint64_t> {
        const auto found = all.find(name);
        if (found == all.end() || std::string(found->second.peekValueType()) != "t") {
            return std::nullopt;
        }
        const auto value = found->second.get<std::uint64_t>();
        if (value == std::numeric_limits<std::uint64_t>::max()) {
            return std::nullopt;
        }
        return value;
    };
    const auto started = counter("ExecMainStartTimestampMonotonic");
    const auto exited = counter("ExecMainExitTimestampMonotonic");
    if (started && exited && *started != 0 && *exited >= *started) {
        end.runtime_usec = *exited - *started;
    }
    end.memory_peak_bytes = counter("MemoryPeak");
    end.tasks_peak = counter("TasksPeak");
    end.cpu_usage_nsec = counter("CPUUsageNSec");
    return end;
}

std::vector<std::string> SystemdManager::log_extra_fields(const sdbus::ObjectPath& path)
{
    std::vector<std::string> fields;
    for (const auto& raw :
         unit_property(path, kServiceInterface, "LogExtraFields").get<std::vector<std::vector<std::uint8_t>>>()) {
        fields.emplace_back(raw.begin(), raw.end());
    }
    return fields;
}

} // namespace nr::sys
