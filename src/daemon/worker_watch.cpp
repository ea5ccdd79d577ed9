#include "daemon/worker_watch.h"

#include "sys/bus_compat.h"

namespace nr::daemon {

WorkerWatch::WorkerWatch(sdbus::IConnection& connection)
    : bus_(sys::make_proxy(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus"))
{
    bus_->uponSignal("NameOwnerChanged")
        .onInterface("org.freedesktop.DBus")
        .call([this](const std::string& name, const std::string& /*old_owner*/, const std::string& new_owner) {
            if (new_owner.empty()) {
                worker_left(name);
            }
        });
    sys::finish_signal_setup(*bus_);
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
