// SPDX-License-Identifier: Apache-2.0
#include "core/base/unit_state.h"

namespace nr::core {

bool is_stopped_state(std::string_view active_state)
{
    return active_state == "inactive" || active_state == "failed";
}

bool unit_has_ended(std::string_view active_state, std::uint64_t inactive_exit_usec)
{
    return active_state == "failed" || (active_state == "inactive" && inactive_exit_usec != 0);
}

} // namespace nr::core
