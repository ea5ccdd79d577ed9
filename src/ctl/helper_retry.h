// SPDX-License-Identifier: Apache-2.0
#pragma once
// A helper that has begun to exit (idle, or stopped for an upgrade) refuses
// a call that would have to wait with HelperStopping, having done nothing;
// it has already given up its bus name, so the same call made again goes
// to the helper the bus activates next. Every call of this CLI that can
// wait in the helper (StartSession, StopSession, RunCanary) goes through
// here.

#include "core/base/error.h"
#include "core/bus/bus_names.h"

#include <sdbus-c++/sdbus-c++.h>

#include <utility>

namespace nr::ctl {

// One exit, then the next instance: a second refusal in a row would need a
// new helper to go idle before it answered the call it was started for.
inline constexpr int kCallsWhileStopping = 3;

template <typename Call> decltype(auto) call_helper(Call&& call)
{
    for (int attempt = 1;; ++attempt) {
        try {
            return std::forward<Call>(call)();
        } catch (const sdbus::Error& e) {
            if (attempt == kCallsWhileStopping ||
                e.getName() != core::bus_error_name(core::ErrorKind::HelperStopping)) {
                throw;
            }
        }
    }
}

} // namespace nr::ctl
