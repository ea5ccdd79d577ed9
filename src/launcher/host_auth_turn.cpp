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

WaitReporter bus_wait_reporter()
{
    struct Bus {
        std::unique_ptr<sdbus::IConnection> connection;
        std::unique_ptr<sys::LauncherProxy> proxy;
    };
    auto bus = std::make_shared<Bus>();
    return [bus](std::size_t ahead) {
        try {
            if (!bus->proxy) {
                bus->connection = sdbus::createSystemBusConnection();
                bus->proxy = std::make_unique<sys::LauncherProxy>(*bus->connection);
            }
            bus->proxy->ReportWaiting(static_cast<std::uint32_t>(std::min<std::size_t>(ahead, UINT32_MAX)));
        } catch (const sdbus::Error& e) {
            std::cerr << "native-runtime-launch: could not report the wait: " << e.getName() << ": " << e.getMessage()
                      << '\n';
        }
    };
}

std::optional<sys::AdmissionTicket> take_turn(const core::LaunchSpec& spec, const WaitReporter& report)
{
    if (!spec.admission.serial()) {
        return std::nullopt;
    }
    auto ticket = sys::AdmissionTicket::enqueue(spec.dirs.base, spec.admission.queue_dir);
    ticket.wait_turn(report);
    return ticket;
}

} // namespace nr::launcher
