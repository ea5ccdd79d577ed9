// SPDX-License-Identifier: Apache-2.0
#pragma once
// Limits shared by all of one owner's sessions. Every session of an owner
// runs in nativeruntime-<owner>.slice, so a cap on that slice bounds the
// owner as a whole, whatever each session's own limits add up to.

#include "core/config/config.h"
#include "core/plan/unit_properties.h"

namespace nr::core {

// MemoryMax=/TasksMax= for the owner's slice; empty when none is configured.
UnitProperties owner_slice_properties(const OwnerLimits& limits);

} // namespace nr::core
