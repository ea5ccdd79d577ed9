// SPDX-License-Identifier: Apache-2.0
#include "daemon/session_registry.h"

#include "core/base/unit_state.h"
#include "core/bus/match_rules.h"
#include "sys/bus/bus_compat.h"
#include "sys/systemd/systemd_manager.h"

namespace nr::daemon {

SessionRegistry::SessionRegistry(sdbus::IConnection& connection)
    : match_(sys::add_match(connection, core::unit_changes_match(),
                            [this](sdbus::Message& message) { unit_changed(message); }))
{
}

void SessionRegistry::unit_changed(sdbus::Message& message)
{
    // Every unit of systemd changes under this rule; most are not ours,
    // so the path is looked up before the body is read.
    const auto unit = unit_by_path_.find(std::string(message.getPath()));
    if (unit == unit_by_path_.end()) {
        return;
    }
    std::string interface;
    std::map<std::string, sdbus::Variant> changed;
    try {
        message >> interface >> changed;
    } catch (const sdbus::Error&) {
        return; // not the signature systemd sends: nothing to learn from it
    }
    if (interface != sys::kUnitInterface) {
        return;
    }
    const auto state = changed.find("ActiveState");
    if (state != changed.end() && core::is_stopped_state(state->second.get<std::string>())) {
        finished_.insert(unit->second);
    }
}

void SessionRegistry::track(const std::string& unit, const sdbus::ObjectPath& path, const std::string& owner,
                            const std::string& chat, const std::string& job)
{
    unit_by_path_[path] = unit;
    sessions_[unit] = TrackedSession{unit, path, owner, chat, job};
}

void SessionRegistry::forget(const std::string& unit)
{
    release(unit);
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
    finished_.erase(unit);
    auto node = sessions_.extract(unit);
    if (node.empty()) {
        return TrackedSession{};
    }
    unit_by_path_.erase(node.mapped().path);
    return std::move(node.mapped());
}

} // namespace nr::daemon
