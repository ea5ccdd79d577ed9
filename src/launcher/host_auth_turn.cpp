// SPDX-License-Identifier: Apache-2.0
#include "launcher/host_auth_turn.h"

#include "core/base/error.h"
#include "sys/bus/helper_proxy.h"

#include <sdbus-c++/sdbus-c++.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <iostream>
#include <memory>

namespace nr::launcher {

std::optional<sys::AdmissionTicket> take_turn(const core::LaunchSpec& spec)
{
    if (!spec.admission.serial()) {
        return std::nullopt;
    }
    auto ticket = sys::AdmissionTicket::enqueue(spec.dirs.base, spec.admission.queue_dir);
    std::unique_ptr<sdbus::IConnection> connection;
    std::unique_ptr<sys::LauncherProxy> reporter;
    ticket.wait_turn([&](std::size_t ahead) {
        // The signal only informs the worker: a failure to send it neither
        // admits the session nor ends its wait.
        try {
            if (!reporter) {
                connection = sdbus::createSystemBusConnection();
                reporter = std::make_unique<sys::LauncherProxy>(*connection);
            }
            reporter->ReportWaiting(static_cast<std::uint32_t>(std::min<std::size_t>(ahead, UINT32_MAX)));
        } catch (const sdbus::Error& e) {
            std::cerr << "native-runtime-launch: could not report the wait: " << e.getName() << ": " << e.getMessage()
                      << '\n';
        }
    });
    return ticket;
}

} // namespace nr::launcher
