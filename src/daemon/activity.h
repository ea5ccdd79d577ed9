// SPDX-License-Identifier: Apache-2.0
#pragma once
// When a caller last asked the helper for something, and whether the
// helper still takes work that outlasts the call. The helper exits once
// nothing is running and no call came for idle_timeout_sec, so every
// handler that may lead to work moves this on.

#include <chrono>

namespace nr::daemon {

class Activity {
public:
    void touch() { last_ = std::chrono::steady_clock::now(); }
    [[nodiscard]] std::chrono::steady_clock::time_point last() const { return last_; }

    // From the moment the helper decides to exit: a call that would have to
    // wait (a start, the canary, polkit) is refused with HelperStopping,
    // since systemd stops a Type=dbus unit once it gives up its bus name.
    void stop_taking_work() { taking_work_ = false; }
    [[nodiscard]] bool taking_work() const { return taking_work_; }

private:
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
    bool taking_work_ = true;
};

} // namespace nr::daemon
