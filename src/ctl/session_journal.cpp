// SPDX-License-Identifier: Apache-2.0
#include "ctl/session_journal.h"

#include "core/cli/journal_line.h"
#include "core/journal/log_query.h"
#include "ctl/local_time.h"

#include <system_error>

namespace nr::ctl {

namespace {

std::string field(const sys::JournalRecord& record, const std::string& name)
{
    const auto found = record.fields.find(name);
    return found == record.fields.end() ? std::string() : found->second;
}

} // namespace

SessionJournal read_session_journal(const std::string& owner, const std::string& chat, std::size_t lines)
{
    SessionJournal journal;
    if (lines == 0) {
        return journal;
    }
    try {
        // The same gate as `logs`: sd-journal skips the files it may not
        // open, and an empty result would read as "nothing happened".
        if (!sys::system_journal_readable()) {
            journal.unreadable = "the session's journal records are shown to root and to the systemd-journal group";
            return journal;
        }
        journal.records = sys::read_journal_tail(core::session_log_terms(owner, chat), lines);
    } catch (const std::system_error& e) {
        journal.unreadable = std::string("the journal could not be read: ") + e.what();
    }
    return journal;
}

void print_session_journal(std::ostream& out, const SessionJournal& journal, std::size_t columns)
{
    if (!journal.unreadable.empty()) {
        out << "\nHint: " << journal.unreadable << ".\n";
        return;
    }
    if (journal.records.empty()) {
        return;
    }
    out << '\n';
    for (const auto& record : journal.records) {
        out << core::journal_short_line(local_time(record.realtime_usec, "%b %d %H:%M:%S"), record.fields, columns)
            << '\n';
    }
}

core::Json session_journal_json(const SessionJournal& journal)
{
    if (!journal.unreadable.empty()) {
        return {};
    }
    auto records = core::Json::array();
    for (const auto& record : journal.records) {
        const auto pid = core::journal_pid(record.fields);
        const auto unit = field(record, "_SYSTEMD_UNIT");
        records.push_back(core::Json{{"realtime_usec", record.realtime_usec},
                                     {"identifier", core::journal_identifier(record.fields)},
                                     {"pid", pid.empty() ? core::Json() : core::Json(pid)},
                                     {"unit", unit.empty() ? core::Json() : core::Json(unit)},
                                     {"message", field(record, "MESSAGE")}});
    }
    return records;
}

} // namespace nr::ctl
