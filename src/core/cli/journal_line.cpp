// SPDX-License-Identifier: Apache-2.0
#include "core/cli/journal_line.h"

#include "core/cli/terminal_text.h"

namespace nr::core {

namespace {

std::string field(const std::map<std::string, std::string>& fields, const std::string& name)
{
    const auto found = fields.find(name);
    return found == fields.end() ? std::string() : found->second;
}

} // namespace

std::string journal_identifier(const std::map<std::string, std::string>& fields)
{
    for (const char* name : {"SYSLOG_IDENTIFIER", "_COMM"}) {
        if (auto value = field(fields, name); !value.empty()) {
            return value;
        }
    }
    return "unknown";
}

std::string journal_pid(const std::map<std::string, std::string>& fields)
{
    // journald's own _PID first: the writer cannot choose it.
    auto pid = field(fields, "_PID");
    return pid.empty() ? field(fields, "SYSLOG_PID") : pid;
}

std::string journal_short_line(const std::string& time_text, const std::map<std::string, std::string>& fields,
                               std::size_t columns)
{
    std::string line = time_text;
    if (const auto host = field(fields, "_HOSTNAME"); !host.empty()) {
        line += " " + escape_control(host);
    }
    line += " " + escape_control(journal_identifier(fields));
    if (const auto pid = journal_pid(fields); !pid.empty()) {
        line += "[" + escape_control(pid) + "]";
    }
    line += ": " + escape_control(field(fields, "MESSAGE"));
    return fit_columns(line, columns);
}

} // namespace nr::core
