// SPDX-License-Identifier: Apache-2.0
#include "core/cli/liveness_schedule.h"

#include <algorithm>

namespace nr::core {

bool LivenessSchedule::due(bool helper_changed, Clock::time_point now)
{
    if (!helper_changed && now < next_) {
        return false;
    }
    next_ = now + kSafetyNet;
    return true;
}

std::chrono::milliseconds LivenessSchedule::wait(Clock::time_point now) const
{
    // Rounded up, so a wait never ends just before the deadline and spins.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(next_ - now);
    return std::max(left, std::chrono::milliseconds(0));
}

} // namespace nr::core
