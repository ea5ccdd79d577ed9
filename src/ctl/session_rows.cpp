// SPDX-License-Identifier: Apache-2.0
#include "ctl/session_rows.h"

#include "core/journal/journal_fields.h"

#include <chrono>
#include <iomanip>

namespace nr::ctl {

namespace {

std::uint64_t u64_property(sys::SystemdManager& systemd, const sdbus::ObjectPath& path, const char* interface,
                           const char* name)
{
    return systemd.unit_property(path, interface, name).get<std::uint64_t>();
}

std::string or_dash(const std::string& text)
{
    return text.empty() ? "-" : text;
}

} // namespace

core::SessionView read_session_view(sys::SystemdManager& systemd, const std::string& unit,
                                    const sdbus::ObjectPath& path)
{
    using sys::kServiceInterface;
    using sys::kUnitInterface;
    core::SessionView view;
    view.unit = unit;
    const auto fields = systemd.log_extra_fields(path);
    view.owner = core::journal_field(fields, core::kFieldOwner);
    view.chat = core::journal_field(fields, core::kFieldChat);
    view.job = core::journal_field(fields, core::kFieldJob);
    view.adapter = core::journal_field(fields, core::kFieldAdapter);
    view.active_state = systemd.unit_property(path, kUnitInterface, "ActiveState").get<std::string>();
    view.sub_state = systemd.unit_property(path, kUnitInterface, "SubState").get<std::string>();
    view.description = systemd.unit_property(path, kUnitInterface, "Description").get<std::string>();
    view.user = systemd.unit_property(path, kServiceInterface, "User").get<std::string>();
    view.main_pid = systemd.unit_property(path, kServiceInterface, "MainPID").get<std::uint32_t>();
    view.active_since_usec =
        core::systemd_timestamp(u64_property(systemd, path, kUnitInterface, "ActiveEnterTimestamp"));
    view.memory_bytes = core::systemd_counter(u64_property(systemd, path, kServiceInterface, "MemoryCurrent"));
    view.memory_max_bytes = core::systemd_counter(u64_property(systemd, path, kServiceInterface, "MemoryMax"));
    view.tasks = core::systemd_counter(u64_property(systemd, path, kServiceInterface, "TasksCurrent"));
    view.tasks_max = core::systemd_counter(u64_property(systemd, path, kServiceInterface, "TasksMax"));
    return view;
}

std::uint64_t realtime_now_usec()
{
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(now).count());
}

void print_session_table(std::ostream& out, const std::vector<core::SessionView>& rows, std::uint64_t now_usec,
                         bool legend)
{
    if (legend) {
        out << std::left << std::setw(16) << "OWNER" << std::setw(20) << "CHAT" << std::setw(14) << "JOB"
            << std::setw(12) << "ADAPTER" << std::setw(17) << "STATE" << std::setw(8) << "AGE" << std::setw(9)
            << "MEMORY" << std::setw(7) << "TASKS"
            << "UNIT\n";
    }
    for (const auto& row : rows) {
        out << std::left << std::setw(16) << row.owner << std::setw(20) << row.chat << std::setw(14) << or_dash(row.job)
            << std::setw(12) << row.adapter << std::setw(17) << (row.active_state + "/" + row.sub_state) << std::setw(8)
            << core::format_age(now_usec, row.active_since_usec) << std::setw(9) << core::format_bytes(row.memory_bytes)
            << std::setw(7) << core::format_count(row.tasks) << row.unit << '\n';
    }
    if (legend) {
        out << '\n' << rows.size() << " session(s) listed.\n";
    }
}

core::Json session_json(const core::SessionView& row, std::uint64_t now_usec)
{
    // A counter systemd lacks is null, never a made-up 0.
    const auto number = [](std::optional<std::uint64_t> value) { return value ? core::Json(*value) : core::Json(); };
    std::optional<std::uint64_t> age_sec;
    if (row.active_since_usec) {
        age_sec = now_usec > *row.active_since_usec ? (now_usec - *row.active_since_usec) / 1000000 : 0;
    }
    return core::Json{{"unit", row.unit},
                      {"owner", row.owner},
                      {"chat", row.chat},
                      {"job", row.job},
                      {"adapter", row.adapter},
                      {"state", row.active_state},
                      {"sub_state", row.sub_state},
                      {"user", row.user},
                      {"main_pid", row.main_pid},
                      {"active_since_usec", number(row.active_since_usec)},
                      {"age_sec", number(age_sec)},
                      {"memory_bytes", number(row.memory_bytes)},
                      {"memory_max_bytes", number(row.memory_max_bytes)},
                      {"tasks", number(row.tasks)},
                      {"tasks_max", number(row.tasks_max)}};
}

void print_session_status(std::ostream& out, const core::SessionView& row, std::uint64_t now_usec)
{
    const auto limit = [](const std::string& value, const std::string& max) {
        return max == "-" ? value : value + " (max " + max + ")";
    };
    out << row.unit << " - " << row.description << '\n'
        << "    Owner: " << row.owner << '\n'
        << "     Chat: " << row.chat << '\n'
        << "      Job: " << or_dash(row.job) << '\n'
        << "  Adapter: " << row.adapter << '\n'
        << "    State: " << row.active_state << " (" << row.sub_state << ")\n"
        << "      Age: " << core::format_age(now_usec, row.active_since_usec) << '\n'
        << "     User: " << or_dash(row.user) << '\n'
        << " Main PID: " << (row.main_pid == 0 ? std::string("-") : std::to_string(row.main_pid)) << '\n'
        << "   Memory: " << limit(core::format_bytes(row.memory_bytes), core::format_bytes(row.memory_max_bytes))
        << '\n'
        << "    Tasks: " << limit(core::format_count(row.tasks), core::format_count(row.tasks_max)) << '\n';
}

} // namespace nr::ctl
