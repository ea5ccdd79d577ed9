// SPDX-License-Identifier: Apache-2.0
#pragma once
// `status`'s last journal records of a session, as `systemctl status` ends
// with them: the same records `native-runtimectl logs --owner O --chat C`
// shows (the trusted matches of core/journal/log_query.h, so a session
// cannot forge records of another), read from the journal's tail.

#include "core/cli/json_output.h"
#include "sys/journal/journal_reader.h"

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace nr::ctl {

struct SessionJournal {
    std::vector<sys::JournalRecord> records; // oldest first
    std::string unreadable;                  // why there are none to show; "" when read
};

// The newest `lines` records of the session (owner, chat). Never throws for
// a journal the caller may not read: `unreadable` says so, and status
// prints it as a hint.
SessionJournal read_session_journal(const std::string& owner, const std::string& chat, std::size_t lines);

// A blank line, then one line per record (journalctl's short format, each
// cut to `columns`, 0: no limit), or the hint when unreadable.
void print_session_journal(std::ostream& out, const SessionJournal& journal, std::size_t columns);

// [{"realtime_usec", "identifier", "pid", "unit", "message"}], or null when
// the journal could not be read.
core::Json session_journal_json(const SessionJournal& journal);

} // namespace nr::ctl
