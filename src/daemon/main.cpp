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
#include "version/version.h"

#include <systemd/sd-journal.h>

#include <sdbus-c++/sdbus-c++.h>

#include <cstring>
#include <iostream>

#ifndef NR_LAUNCHER_PATH
#error "NR_LAUNCHER_PATH must be defined by the build"
#endif

int main(int argc, char** argv)
{
    const auto version = nr::version::describe("native-runtimed");
    if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
        std::cout << version << '\n';
        return 0;
    }
    if (argc != 1) {
        std::cerr << "usage: native-runtimed [--version]\n";
        return 64;
    }
    // Which build is answering: the first thing an operator needs after an upgrade.
    sd_journal_send("MESSAGE=%s starting", version.c_str(), "PRIORITY=6", "NATIVE_RUNTIME_VERSION=%s",
                    std::string(nr::version::project()).c_str(), nullptr);
    try {
        const auto config_path = nr::sys::config_path();
        auto config = nr::sys::load_config(config_path);
        auto connection = sdbus::createSystemBusConnection();
        // Files: a second interface on the same object, with its own copy
        // of the configuration.
        nr::daemon::FileService files(*connection, config);
        nr::daemon::ManagerService service(*connection, std::move(config), NR_LAUNCHER_PATH, config_path);
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
