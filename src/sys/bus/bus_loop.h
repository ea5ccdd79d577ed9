// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one loop the helper and the CLI wait in: the bus connection's events
// and the signals that end a wait, single-threaded, in the manner of
// systemd's bus-activated helpers (all callbacks run on the waiting thread,
// so nothing needs a lock).

#include "sys/base/unique_fd.h"

#include <sdbus-c++/IConnection.h>

#include <initializer_list>
#include <vector>

namespace nr::sys {

// Blocks `signals` for the whole process and reads them through a
// signalfd instead, so that they end a wait rather than the process.
// Throws std::system_error when the mask or the signalfd cannot be set.
class StopSignals {
public:
    explicit StopSignals(std::initializer_list<int> signals);

    [[nodiscard]] int fd() const { return fd_.get(); }

private:
    UniqueFd fd_;
};

// Dispatches every bus event already pending.
void dispatch_pending(sdbus::IConnection& connection);

// Waits for the next bus event or stop signal, for at most `max_wait_ms`
// (less when the connection has a timeout due sooner). True when a stop
// signal arrived; it is consumed, so the next wait waits again. Throws
// std::system_error when poll(2) fails for another reason than a signal.
// `also_wake_on`: further descriptors whose input ends the wait.
bool wait_for_bus_or_signal(sdbus::IConnection& connection, const StopSignals& signals, int max_wait_ms,
                            const std::vector<int>& also_wake_on = {});

} // namespace nr::sys
