// `native-runtimectl list`: read straight from systemd, so it works whether
// or not the helper is running and shows exactly what systemd runs.

#include "core/error.h"
#include "core/session_plan.h"
#include "core/unit_name.h"
#include "ctl/commands.h"
#include "ctl/exit_status.h"
#include "ctl/json_text.h"
#include "sys/systemd_manager.h"

#include <sdbus-c++/sdbus-c++.h>

#include <iomanip>
#include <iostream>

namespace nr::ctl {

namespace {

struct SessionRow {
    std::string unit;
    std::string owner;
    std::string chat;
    std::string job;
    std::string adapter;
    std::string state;
};

void print_table(const std::vector<SessionRow>& rows)
{
    std::cout << std::left << std::setw(16) << "OWNER" << std::setw(20) << "CHAT" << std::setw(14) << "JOB"
              << std::setw(12) << "ADAPTER" << std::setw(12) << "STATE"
              << "UNIT\n";
    for (const auto& row : rows) {
        std::cout << std::left << std::setw(16) << row.owner << std::setw(20) << row.chat << std::setw(14)
                  << (row.job.empty() ? "-" : row.job) << std::setw(12) << row.adapter << std::setw(12) << row.state
                  << row.unit << '\n';
    }
    std::cout << '\n' << rows.size() << " session(s) listed.\n";
}

void print_json(const std::vector<SessionRow>& rows)
{
    std::cout << '[';
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& row = rows[i];
        std::cout << (i == 0 ? "" : ",") << "{\"unit\":" << json_quote(row.unit)
                  << ",\"owner\":" << json_quote(row.owner) << ",\"chat\":" << json_quote(row.chat)
                  << ",\"job\":" << json_quote(row.job) << ",\"adapter\":" << json_quote(row.adapter)
                  << ",\"state\":" << json_quote(row.state) << '}';
    }
    std::cout << "]\n";
}

} // namespace

int list_sessions(bool json)
{
    try {
        auto connection = sdbus::createSystemBusConnection();
        sys::SystemdManager systemd(*connection);
        std::vector<SessionRow> rows;
        for (const auto& unit : systemd.list_units({std::string(core::kUnitPrefix) + "*.service"})) {
            if (!core::is_session_unit_name(unit.name)) {
                continue;
            }
            const auto fields = systemd.log_extra_fields(unit.path);
            rows.push_back(
                {unit.name, core::journal_field(fields, "NATIVE_RUNTIME_OWNER"),
                 core::journal_field(fields, "NATIVE_RUNTIME_CHAT"), core::journal_field(fields, "NATIVE_RUNTIME_JOB"),
                 core::journal_field(fields, "NATIVE_RUNTIME_ADAPTER"), unit.active_state + "/" + unit.sub_state});
        }
        json ? print_json(rows) : print_table(rows);
        return 0;
    } catch (const sdbus::Error& e) {
        std::cerr << "native-runtimectl: " << e.getName() << ": " << e.getMessage() << '\n';
        return kExitUnavailable;
    } catch (const core::Error& e) {
        std::cerr << "native-runtimectl: " << core::error_name(e.kind()) << ": " << e.what() << '\n';
        return kExitUnavailable;
    }
}

} // namespace nr::ctl
