#pragma once
// Single-threaded loop over the bus connection with exit-on-idle, in the
// manner of systemd's bus-activated helpers: all callbacks run on this
// thread, so the service needs no locks.

#include <sdbus-c++/IConnection.h>

namespace nr::daemon {

class ManagerService;

// Returns when the service has been idle for its timeout or on SIGTERM.
void run_until_idle(sdbus::IConnection& connection, ManagerService& service);

} // namespace nr::daemon
