// SPDX-License-Identifier: Apache-2.0
#include "sys/service/listen_fds.h"

#include <systemd/sd-daemon.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace nr::sys {

std::vector<ListenFd> take_listen_fds()
{
    char** names = nullptr;
    const int count = sd_listen_fds_with_names(1, &names);
    if (count < 0) {
        throw std::runtime_error(std::string("reading LISTEN_FDS: ") + std::strerror(-count));
    }
    std::vector<ListenFd> out;
    out.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        out.push_back({UniqueFd(SD_LISTEN_FDS_START + i), names != nullptr && names[i] != nullptr ? names[i] : ""});
    }
    if (names != nullptr) {
        for (int i = 0; i < count; ++i) {
            free(names[i]); // NOLINT(cppcoreguidelines-no-malloc): owned by libsystemd
        }
        free(names); // NOLINT(cppcoreguidelines-no-malloc)
    }
    return out;
}

} // namespace nr::sys
