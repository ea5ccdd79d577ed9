// SPDX-License-Identifier: Apache-2.0
// `native-runtimectl list` and `status`: read straight from systemd, so they
// work whether or not the helper is running and show exactly what systemd
// runs.

#include "core/base/error.h"
#include "core/base/ids.h"
#include "core/base/unit_name.h"
#include "ctl/commands.h"
#include "ctl/exit_status.h"
#include "ctl/gateway_usage_view.h"
#include "ctl/operator_commands.h"
#include "ctl/session_journal.h"
#include "ctl/session_processes.h"
#include "ctl/session_rows.h"
#include "sys/systemd/systemd_manager.h"

#include <sdbus-c++/sdbus-c++.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <iostream>

namespace nr::ctl {

namespace {

// What a session wrote is cut to the terminal's width, as systemctl status
// does; into a pipe or a file to a fixed width, so that it stays bounded.
constexpr std::size_t kPipeColumns = 400;

std::size_t output_columns()
{
    winsize size{};
    if (::isatty(STDOUT_FILENO) == 1 && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
        return size.ws_col;
    }
    return kPipeColumns;
}

} // namespace

int list_sessions(const ListOptions& options)
{
    auto connection = sdbus::createSystemBusConnection();
    sys::SystemdManager systemd(*connection);
    std::vector<core::SessionView> rows;
    for (const auto& unit : systemd.list_units({std::string(core::kUnitPrefix) + "*.service"})) {
        if (core::is_session_unit_name(unit.name)) {
            rows.push_back(read_session_view(systemd, unit.name, unit.path));
        }
    }
    const auto now = realtime_now_usec();
    if (options.json.empty()) {
        print_session_table(std::cout, rows, now, !options.no_legend);
        return 0;
    }
    auto array = core::Json::array();
    for (const auto& row : rows) {
        array.push_back(session_json(row, now));
    }
    std::cout << core::json_text(array, core::json_style(options.json)) << '\n';
    return 0;
}

int session_status(const StatusOptions& options)
{
    auto connection = sdbus::createSystemBusConnection();
    sys::SystemdManager systemd(*connection);
    const auto unit = core::session_unit_name(options.owner, options.chat);
    const auto path = systemd.unit_path(unit);
    if (!path) {
        core::fail(core::ErrorKind::NoSuchSession,
                   "no session for owner " + options.owner + " and chat " + options.chat + " (" + unit + ")");
    }
    const auto view = read_session_view(systemd, unit, *path);
    const auto now = realtime_now_usec();
    const auto gateway = read_gateway_usage(view, now);
    const auto processes = read_session_processes(systemd, *path);
    const auto journal = read_session_journal(options.owner, options.chat, options.lines);
    if (options.json.empty()) {
        const auto columns = output_columns();
        print_session_status(std::cout, view, now);
        print_gateway_usage(std::cout, gateway, view.owner);
        print_session_processes(std::cout, processes, columns);
        print_session_journal(std::cout, journal, columns);
    } else {
        auto json = session_json(view, now);
        json["gateway"] = gateway_usage_json(gateway);
        add_session_processes_json(json, processes);
        json["journal"] = session_journal_json(journal);
        std::cout << core::json_text(json, core::json_style(options.json)) << '\n';
    }
    return 0;
}

} // namespace nr::ctl
