#include "launcher/host_auth_turn.h"

#include "core/error.h"
#include "dbus/native_runtime_launcher_proxy.h"
#include "sys/bus_compat.h"

#include <sdbus-c++/sdbus-c++.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <iostream>
#include <memory>

namespace nr::launcher {

namespace {

class WaitingReporter final : public sdbus::ProxyInterfaces<org::metis::NativeRuntime1::Launcher_proxy> {
public:
    explicit WaitingReporter(sdbus::IConnection& connection)
        : ProxyInterfaces(connection, sys::BusName{"org.metis.NativeRuntime1"},
                          sdbus::ObjectPath{"/org/metis/NativeRuntime1"})
    {
        registerProxy();
    }
    ~WaitingReporter() { unregisterProxy(); }
    WaitingReporter(const WaitingReporter&) = delete;
    WaitingReporter& operator=(const WaitingReporter&) = delete;
    WaitingReporter(WaitingReporter&&) = delete;
    WaitingReporter& operator=(WaitingReporter&&) = delete;
};

} // namespace

std::optional<sys::AdmissionTicket> take_turn(const core::LaunchSpec& spec)
{
    if (!spec.admission.serial()) {
        return std::nullopt;
    }
    auto ticket = sys::AdmissionTicket::enqueue(spec.dirs.base, spec.admission.queue_dir);
    std::unique_ptr<sdbus::IConnection> connection;
    std::unique_ptr<WaitingReporter> reporter;
    ticket.wait_turn([&](std::size_t ahead) {
        // The signal only informs the worker: a failure to send it neither
        // admits the session nor ends its wait.
        try {
            if (!reporter) {
                connection = sdbus::createSystemBusConnection();
                reporter = std::make_unique<WaitingReporter>(*connection);
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
