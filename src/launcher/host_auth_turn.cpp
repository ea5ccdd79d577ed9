// SPDX-License-Identifier: Apache-2.0
#include "launcher/host_auth_turn.h"

#include "core/base/error.h"

namespace nr::launcher {

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
