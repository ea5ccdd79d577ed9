// `native-runtimectl logs --owner O [--chat C]`: the journal records tagged
// with a session's structured fields, as `journalctl NATIVE_RUNTIME_OWNER=O`.

#include "core/error.h"
#include "core/json_output.h"
#include "core/log_query.h"
#include "ctl/exit_status.h"
#include "ctl/operator_commands.h"
#include "sys/journal_reader.h"

#include <array>
#include <ctime>
#include <iostream>
#include <system_error>

namespace nr::ctl {

namespace {

std::string iso_time(std::uint64_t usec)
{
    const auto secs = static_cast<std::time_t>(usec / 1000000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    std::array<char, 32> buf{};
    (void)std::strftime(buf.data(), buf.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf.data();
}

std::string field(const sys::JournalRecord& record, const std::string& name)
{
    const auto it = record.fields.find(name);
    return it == record.fields.end() ? std::string() : it->second;
}

void print_text(const sys::JournalRecord& record)
{
    auto source = field(record, "SYSLOG_IDENTIFIER");
    if (source.empty()) {
        source = field(record, "_SYSTEMD_UNIT");
    }
    const auto pid = field(record, "_PID");
    std::cout << iso_time(record.realtime_usec) << ' ' << source << (pid.empty() ? "" : "[" + pid + "]") << ": "
              << field(record, "MESSAGE") << '\n';
}

void print_json(const sys::JournalRecord& record)
{
    core::Json object{{"realtime_usec", record.realtime_usec}};
    for (const auto& [name, value] : record.fields) {
        object[name] = value;
    }
    std::cout << core::json_text(object, core::JsonStyle::Short) << '\n';
}

} // namespace

int session_logs(const LogsOptions& options)
{
    const auto terms = core::session_log_terms(options.owner, options.chat);
    for (const auto& record : sys::read_journal(terms, core::session_log_fields(), options.lines)) {
        options.json ? print_json(record) : print_text(record);
    }
    return 0;
}

} // namespace nr::ctl
