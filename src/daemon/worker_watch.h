// SPDX-License-Identifier: Apache-2.0
#pragma once
// Stops sessions whose worker left the bus. A worker that crashes or is
// killed mid-session can no longer read the session's output or its end, so
// by default its sessions go with it; an adapter can choose `keep`.

#include <sdbus-c++/sdbus-c++.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace nr::daemon {

class WorkerWatch {
public:
    explicit WorkerWatch(sdbus::IConnection& connection);

    // Ties `unit` to the bus connection `worker` (a unique name such as
    // ":1.42"). If the worker is already gone, the unit is orphaned at once:
    // the check runs after the subscription, so no departure is missed.
    void watch(const std::string& worker, const std::string& unit);
    void forget(const std::string& unit);

    // Units whose worker left since the last call.
    std::vector<std::string> take_orphaned();

private:
    void worker_left(const std::string& worker);

    std::unique_ptr<sdbus::IProxy> bus_;
    std::map<std::string, std::set<std::string>> units_by_worker_;
    std::vector<std::string> orphaned_;
    // Last, so it goes first: no callback runs against a destroyed table.
    sdbus::Slot departures_;
};

} // namespace nr::daemon
