// native-runtimed: bus-activated helper that starts isolated sessions as
// transient systemd services. It holds no state systemd does not also hold,
// so it can exit when idle and be activated again on the next call.

#include "core/error.h"
#include "daemon/bus_errors.h"
#include "daemon/event_loop.h"
#include "daemon/file_service.h"
#include "daemon/manager_service.h"
#include "sys/bus_compat.h"
#include "sys/config_file.h"

#include <sdbus-c++/sdbus-c++.h>

#include <iostream>

#ifndef NR_LAUNCHER_PATH
#error "NR_LAUNCHER_PATH must be defined by the build"
#endif

int main()
{
    try {
        auto config = nr::sys::load_config(nr::sys::config_path());
        auto connection = sdbus::createSystemBusConnection();
        // Files: a second interface on the same object, with its own copy
        // of the configuration.
        nr::daemon::FileService files(*connection, config);
        nr::daemon::ManagerService service(*connection, std::move(config), NR_LAUNCHER_PATH);
        service.adopt_running_sessions();
        connection->requestName(nr::sys::BusName{nr::daemon::kBusName});
        nr::daemon::run_until_idle(*connection, service);
        // Release first so the broker queues new calls for a fresh
        // activation, then answer whatever already reached this instance.
        connection->releaseName(nr::sys::BusName{nr::daemon::kBusName});
        while (nr::sys::process_pending(*connection)) {
        }
        service.housekeeping();
        return 0;
    } catch (const nr::core::Error& e) {
        std::cerr << "native-runtimed: " << nr::core::error_name(e.kind()) << ": " << e.what() << '\n';
    } catch (const sdbus::Error& e) {
        std::cerr << "native-runtimed: " << e.getName() << ": " << e.getMessage() << '\n';
    } catch (const std::exception& e) {
        std::cerr << "native-runtimed: " << e.what() << '\n';
    }
    return 1;
}
