// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one place that writes to the journal: a core::LogRecord, sent to
// journald over its native protocol (core/journal/journal_native.h) under the
// binary's SYSLOG_IDENTIFIER, as one datagram, or as a sealed memfd when it
// is too large for one (what sd_journal_sendv does, without libsystemd, so
// that native-runtime-supervise can log too). journald adds the trusted
// fields (_PID, _SYSTEMD_UNIT=, the unit's LogExtraFields=) from the
// sender's credentials. Logging never throws: a record that cannot be
// written must not turn a refusal into a different error, or a started
// session into a failed one.

#include "core/journal/log_event.h"

#include <chrono>
#include <string_view>

namespace nr::sys {

// Sets SYSLOG_IDENTIFIER= for every later record of this process.
void set_log_identifier(std::string_view identifier);

// From now on every record of this process goes out through one socket
// opened here instead of one socket per record (two system calls fewer
// on a path that logs every request). Only for a process that never closes
// descriptors it did not open itself, or the number could come to name
// another file: the gateway.
void keep_log_socket();

void write_log(const core::LogRecord& record) noexcept;

// For a process about to exit: also waits, at most `at_most`, until
// journald has taken the record off its socket. journald learns the
// sender's unit from /proc/PID/cgroup only when it gets to the record; a
// sender already gone and reaped by then leaves a record without
// _SYSTEMD_UNIT=, which `journalctl -u` of its session does not show (seen
// on a loaded machine). Once it has taken the record, journald reads that
// at once, while the sender, at worst a zombie, still has its cgroup.
// Three seconds: far above journald's usual lag, and only ever paid on a
// path that ends the session anyway.
inline constexpr std::chrono::milliseconds kLastRecordWait{3000};
void write_last_log(const core::LogRecord& record, std::chrono::milliseconds at_most = kLastRecordWait) noexcept;

} // namespace nr::sys
