// SPDX-License-Identifier: Apache-2.0
#include "sys/service/unit_of_pid.h"

#include <systemd/sd-login.h>

#include <cstdlib>

namespace nr::sys {

std::string unit_of_pid(pid_t pid)
{
    char* unit = nullptr;
    if (sd_pid_get_unit(pid, &unit) < 0 || unit == nullptr) {
        return {};
    }
    std::string out(unit);
    std::free(unit); // NOLINT(cppcoreguidelines-no-malloc): owned by libsystemd
    return out;
}

} // namespace nr::sys
