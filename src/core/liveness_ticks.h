#pragma once
// When a waiting `native-runtimectl run` asks the bus whether the helper
// holding its session, and the session's unit, are still there. Asking on
// every 1 s tick cost each waiting CLI two bus calls a second (NameHasOwner
// to the broker, GetUnit to PID 1): with 256 sessions held open that was a
// seventh of a CPU, spent while nothing happened.

namespace nr::core {

class LivenessTicks {
public:
    // Ticks without a change after which the check runs anyway: the broker
    // drops signals to a peer over its quota, and a lost SessionEnded or
    // NameOwnerChanged must end in "result lost", not in a wait forever.
    static constexpr unsigned kSafetyNet = 10;

    // Called once a tick. True when the check is due: the helper's name
    // changed owner since the last tick (the helper holding the unit's
    // reference left, so the unit may be gone unreported), or kSafetyNet
    // ticks passed since the last check.
    bool due(bool helper_changed);

private:
    unsigned quiet_ = 0;
};

} // namespace nr::core
