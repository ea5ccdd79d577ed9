#include "daemon/session_registry.h"

#include "core/unit_state.h"
#include "sys/bus_compat.h"
#include "sys/systemd_manager.h"

namespace nr::daemon {

void SessionRegistry::track(const std::string& unit, const sdbus::ObjectPath& path, const std::string& owner,
                            const std::string& chat, const std::string& job)
{
    auto watch = sys::make_proxy(connection_, sys::kSystemdService, path);
    // Only note the change here: callbacks run inside dispatch, where
    // destroying this proxy or making further calls would be unsafe.
    watch->uponSignal("PropertiesChanged")
        .onInterface("org.freedesktop.DBus.Properties")
        .call([this, unit](const std::string& interface, const std::map<std::string, sdbus::Variant>& changed,
                           const std::vector<std::string>& /*invalidated*/) {
            if (interface != sys::kUnitInterface) {
                return;
            }
            const auto state = changed.find("ActiveState");
            if (state != changed.end() && core::is_stopped_state(state->second.get<std::string>())) {
                finished_.insert(unit);
            }
        });
    sys::finish_signal_setup(*watch);
    sessions_[unit] = TrackedSession{unit, path, owner, chat, job, std::move(watch)};
}

void SessionRegistry::forget(const std::string& unit)
{
    sessions_.erase(unit);
    finished_.erase(unit);
}

void SessionRegistry::mark_finished(const std::string& unit)
{
    if (sessions_.count(unit) != 0) {
        finished_.insert(unit);
    }
}

std::vector<std::string> SessionRegistry::take_candidates()
{
    std::vector<std::string> out(finished_.begin(), finished_.end());
    finished_.clear();
    return out;
}

TrackedSession SessionRegistry::release(const std::string& unit)
{
    auto node = sessions_.extract(unit);
    return node.empty() ? TrackedSession{} : std::move(node.mapped());
}

} // namespace nr::daemon
