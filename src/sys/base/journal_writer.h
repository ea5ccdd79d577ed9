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

} // namespace nr::sys
