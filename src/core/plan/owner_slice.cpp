// SPDX-License-Identifier: Apache-2.0
#include "core/plan/owner_slice.h"

namespace nr::core {

UnitProperties owner_slice_properties(const OwnerLimits& limits)
{
    UnitProperties properties;
    if (limits.memory_max_bytes) {
        properties.push_back({"MemoryMax", *limits.memory_max_bytes});
    }
    if (limits.tasks_max) {
        properties.push_back({"TasksMax", *limits.tasks_max});
    }
    return properties;
}

} // namespace nr::core
