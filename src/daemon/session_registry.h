// SPDX-License-Identifier: Apache-2.0
#pragma once
// The sessions this helper instance reports on. systemd stays the source of
// truth: a restarted helper rebuilds this table from the running units
// (SessionLifecycle::adopt_running_sessions) instead of from any state of its own.

#include <sdbus-c++/sdbus-c++.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace nr::daemon {

struct TrackedSession {
    std::string unit;
    sdbus::ObjectPath path;
    std::string owner;
    std::string chat;
    std::string job;
};

class SessionRegistry {
public:
    // Subscribes once, for the state changes of every systemd unit (one
    // match rule however many sessions run; see core::unit_changes_match),
    // so a unit tracked before it is started cannot end unnoticed.
    explicit SessionRegistry(sdbus::IConnection& connection);

    // Watches the unit's ActiveState; once it is inactive or failed the unit
    // is queued for `take_candidates`.
    void track(const std::string& unit, const sdbus::ObjectPath& path, const std::string& owner,
               const std::string& chat, const std::string& job);
    void forget(const std::string& unit);
    void mark_finished(const std::string& unit);

    // Units that reported a stopped state since the last call. A unit whose
    // start job is still queued is also "inactive", so the caller confirms
    // each candidate with systemd before calling `release`.
    std::vector<std::string> take_candidates();
    TrackedSession release(const std::string& unit);

    [[nodiscard]] bool empty() const { return sessions_.empty(); }
    [[nodiscard]] std::size_t size() const { return sessions_.size(); }
    [[nodiscard]] bool contains(const std::string& unit) const { return sessions_.count(unit) != 0; }
    // The tracked session of `unit`, or nullptr.
    [[nodiscard]] const TrackedSession* find(const std::string& unit) const
    {
        const auto it = sessions_.find(unit);
        return it == sessions_.end() ? nullptr : &it->second;
    }

private:
    // Runs inside dispatch: only notes the unit, never calls out.
    void unit_changed(sdbus::Message& message);

    std::map<std::string, TrackedSession> sessions_;
    std::map<std::string, std::string, std::less<>> unit_by_path_;
    std::set<std::string> finished_;
    // Last, so it goes first: no callback runs against a destroyed table.
    sdbus::Slot match_;
};

} // namespace nr::daemon
