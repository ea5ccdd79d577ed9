// SPDX-License-Identifier: Apache-2.0
#pragma once
// One journal record as `status` prints it under the process tree, the way
// `journalctl -o short` (and `systemctl status`) does: "TIME HOST
// IDENTIFIER[PID]: MESSAGE". The message and identifier may come from the
// session, so they are escaped (core/cli/terminal_text.h).

#include <cstddef>
#include <map>
#include <string>

namespace nr::core {

// `time_text`: the record's time as the caller formats it in local time
// ("Dec 04 21:51:02"). The identifier is SYSLOG_IDENTIFIER, else _COMM,
// else "unknown"; the PID is journald's _PID, else SYSLOG_PID, else left
// out; the host (_HOSTNAME) is left out when absent. Cut to `columns`
// (0: no limit).
std::string journal_short_line(const std::string& time_text, const std::map<std::string, std::string>& fields,
                               std::size_t columns);

// The record's identifier and PID as journal_short_line() chooses them,
// unescaped (for --json, which escapes by itself).
std::string journal_identifier(const std::map<std::string, std::string>& fields);
std::string journal_pid(const std::map<std::string, std::string>& fields);

} // namespace nr::core
