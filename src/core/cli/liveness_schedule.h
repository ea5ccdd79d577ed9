// SPDX-License-Identifier: Apache-2.0
#pragma once
// When a waiting `native-runtimectl run` asks the bus whether the helper
// holding its session, and the session's unit, are still there. Asking on a
// 1 s tick cost every waiting CLI a wake-up and two bus calls a second
// (NameHasOwner to the broker, GetUnit to PID 1): with 256 sessions held
// open that was about 140 ms of CPU a second while nothing happened.
// The helper that answered StartSession holds the unit's reference and
// reports its end, so only a change of its name's owner can lose the end:
// the CLI asks when that happens, and otherwise only as a safety net.

#include <chrono>

namespace nr::core {

class LivenessSchedule {
public:
    using Clock = std::chrono::steady_clock;

    // The broker drops signals to a peer over its quota: a lost
    // SessionEnded or NameOwnerChanged must end in "result lost" within
    // this, not in a wait forever.
    static constexpr std::chrono::seconds kSafetyNet{10};

    explicit LivenessSchedule(Clock::time_point now) : next_(now + kSafetyNet) {}

    // Whether to ask now: the helper's name changed owner since the last
    // call, or the safety net's time came. Asking restarts the safety net.
    bool due(bool helper_changed, Clock::time_point now);

    // How long the caller may wait for a bus event or a signal before it
    // calls `due` again.
    [[nodiscard]] std::chrono::milliseconds wait(Clock::time_point now) const;

private:
    Clock::time_point next_;
};

} // namespace nr::core
