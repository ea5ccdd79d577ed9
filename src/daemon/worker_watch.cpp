// SPDX-License-Identifier: Apache-2.0
#include "daemon/worker_watch.h"

#include "core/bus/match_rules.h"
#include "sys/bus/bus_compat.h"

namespace nr::daemon {

WorkerWatch::WorkerWatch(sdbus::IConnection& connection)
    : bus_(sys::make_proxy(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus")),
      // One rule for every worker, departures only: a rule per worker would
      // grow with the sessions, and arrivals are of no interest.
      departures_(sys::add_match(connection, core::name_departures_match(), [this](sdbus::Message& message) {
          std::string name;
          std::string old_owner;
          std::string new_owner;
          try {
              message >> name >> old_owner >> new_owner;
          } catch (const sdbus::Error&) {
              return;
          }
          if (new_owner.empty()) {
              worker_left(name);
          }
      }))
{
}

void WorkerWatch::watch(const std::string& worker, const std::string& unit)
{
    units_by_worker_[worker].insert(unit);
    bool present = false;
    try {
        bus_->callMethod("NameHasOwner")
            .onInterface("org.freedesktop.DBus")
            .withArguments(worker)
            .storeResultsTo(present);
    } catch (const sdbus::Error&) {
        present = false; // unknown is treated as gone: the policy is to stop
    }
    if (!present) {
        worker_left(worker);
    }
}

void WorkerWatch::forget(const std::string& unit)
{
    for (auto it = units_by_worker_.begin(); it != units_by_worker_.end();) {
        it->second.erase(unit);
        it = it->second.empty() ? units_by_worker_.erase(it) : std::next(it);
    }
}

std::vector<std::string> WorkerWatch::take_orphaned()
{
    return std::exchange(orphaned_, {});
}

void WorkerWatch::worker_left(const std::string& worker)
{
    const auto node = units_by_worker_.extract(worker);
    if (!node.empty()) {
        orphaned_.insert(orphaned_.end(), node.mapped().begin(), node.mapped().end());
    }
}

} // namespace nr::daemon
