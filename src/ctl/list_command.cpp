// `native-runtimectl list` and `status`: read straight from systemd, so they
// work whether or not the helper is running and show exactly what systemd
// runs.

#include "core/error.h"
#include "core/ids.h"
#include "core/unit_name.h"
#include "ctl/commands.h"
#include "ctl/exit_status.h"
#include "ctl/operator_commands.h"
#include "ctl/session_rows.h"
#include "sys/systemd_manager.h"

#include <sdbus-c++/sdbus-c++.h>

#include <iostream>

namespace nr::ctl {

namespace {

template <typename Body> int reading_systemd(Body&& body)
{
    try {
        return body();
    } catch (const sdbus::Error& e) {
        std::cerr << "native-runtimectl: " << e.getName() << ": " << e.getMessage() << '\n';
        return kExitUnavailable;
    } catch (const core::Error& e) {
        std::cerr << "native-runtimectl: " << core::error_name(e.kind()) << ": " << e.what() << '\n';
        return e.kind() == core::ErrorKind::InvalidArgument ? kExitUsage
               : e.kind() == core::ErrorKind::NoSuchSession ? kExitRefused
                                                            : kExitUnavailable;
    }
}

} // namespace

int list_sessions(bool json)
{
    return reading_systemd([&] {
        auto connection = sdbus::createSystemBusConnection();
        sys::SystemdManager systemd(*connection);
        std::vector<core::SessionView> rows;
        for (const auto& unit : systemd.list_units({std::string(core::kUnitPrefix) + "*.service"})) {
            if (core::is_session_unit_name(unit.name)) {
                rows.push_back(read_session_view(systemd, unit.name, unit.path));
            }
        }
        const auto now = realtime_now_usec();
        if (!json) {
            print_session_table(std::cout, rows, now);
            return 0;
        }
        std::cout << '[';
        for (std::size_t i = 0; i < rows.size(); ++i) {
            std::cout << (i == 0 ? "" : ",");
            print_session_json(std::cout, rows[i], now);
        }
        std::cout << "]\n";
        return 0;
    });
}

int session_status(const StatusOptions& options)
{
    return reading_systemd([&] {
        core::validate_id(core::IdKind::Owner, options.owner);
        core::validate_id(core::IdKind::Chat, options.chat);
        auto connection = sdbus::createSystemBusConnection();
        sys::SystemdManager systemd(*connection);
        const auto unit = core::session_unit_name(options.owner, options.chat);
        const auto path = systemd.unit_path(unit);
        if (!path) {
            core::fail(core::ErrorKind::NoSuchSession,
                       "no session for owner " + options.owner + " and chat " + options.chat + " (" + unit + ")");
        }
        const auto view = read_session_view(systemd, unit, *path);
        if (options.json) {
            print_session_json(std::cout, view, realtime_now_usec());
            std::cout << '\n';
        } else {
            print_session_status(std::cout, view, realtime_now_usec());
        }
        return 0;
    });
}

} // namespace nr::ctl
