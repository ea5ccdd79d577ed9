#include "core/liveness_ticks.h"

namespace nr::core {

bool LivenessTicks::due(bool helper_changed)
{
    if (helper_changed || ++quiet_ >= kSafetyNet) {
        quiet_ = 0;
        return true;
    }
    return false;
}

} // namespace nr::core
