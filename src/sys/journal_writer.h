#pragma once
// The one place that writes to the journal: a core::LogRecord, sent with
// sd_journal_sendv under the binary's SYSLOG_IDENTIFIER. Logging never
// throws: a record that cannot be written must not turn a refusal into a
// different error, or a started session into a failed one.

#include "core/log_event.h"

#include <string_view>

namespace nr::sys {

// Sets SYSLOG_IDENTIFIER= for every later record of this process.
void set_log_identifier(std::string_view identifier);

void write_log(const core::LogRecord& record) noexcept;

} // namespace nr::sys
