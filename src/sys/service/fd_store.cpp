// SPDX-License-Identifier: Apache-2.0
#include "sys/service/fd_store.h"

#include <systemd/sd-daemon.h>

#include <string>

namespace nr::sys {

bool store_fds(std::string_view name, std::span<const int> fds)
{
    const auto message = "FDSTORE=1\nFDNAME=" + std::string(name);
    return sd_pid_notify_with_fds(0, 0, message.c_str(), fds.data(), static_cast<unsigned>(fds.size())) > 0;
}

void remove_stored_fds(std::string_view name)
{
    const auto message = "FDSTOREREMOVE=1\nFDNAME=" + std::string(name);
    (void)sd_pid_notify(0, 0, message.c_str());
}

} // namespace nr::sys
