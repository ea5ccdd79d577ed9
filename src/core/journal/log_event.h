// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the product's binaries write to the journal, decided without touching
// it: one MESSAGE_ID per kind of event (docs/journal.catalog has an entry for
// each), the priority, and the structured fields. sys/base/journal_writer sends
// the result over journald's native protocol (core/journal/journal_native.h);
// nothing else in the project writes to the journal.

#include "core/base/error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace nr::core {

enum class LogEvent {
    HelperStarted,
    SessionStarted,
    SessionEnded,
    SessionRefused,
    SessionStopped,
    HardeningNotApplied,
    PreflightFailed,
    FileOperationRefused,
    FileEdited,
    LaunchFailed,
    SyscallsDenied,
    HelperTrouble,
    DropinsChanged,
    PreflightCanary,
    GatewayRequest,
    GatewaySessionEnded,
    GatewayRefusalsSummarized,
    GatewayFault,
    PolkitChecked,
};

// syslog(3) levels, as PRIORITY= carries them.
enum class Priority { Emergency = 0, Alert, Critical, Error, Warning, Notice, Info, Debug };

// Every kind, in declaration order (catalog and tests walk it).
const std::vector<LogEvent>& all_log_events();

// The fixed 128-bit id (32 lowercase hex digits) of a kind of event.
std::string_view message_id(LogEvent event);

Priority default_priority(LogEvent event);

// What a record is about, as far as it is known: every non-empty part
// becomes a NATIVE_RUNTIME_* field; a valid owner and chat also give
// OBJECT_SYSTEMD_UNIT=, so that `journalctl -u UNIT` and `systemctl status
// UNIT` show the helper's records about that session.
struct SessionRef {
    std::string owner;
    std::string chat;
    std::string job;
    std::string unit; // when known; derived from owner and chat otherwise
};

// Who asked, from the bus credentials (never from the payload).
// Empty when the bus did not say: never a guess.
struct Caller {
    std::optional<uid_t> uid;
    std::optional<pid_t> pid;
};

struct LogRecord {
    LogEvent event = LogEvent::HelperTrouble;
    Priority priority = Priority::Info;
    std::string message;
    // NAME=value pairs beyond MESSAGE, PRIORITY, MESSAGE_ID and
    // SYSLOG_IDENTIFIER; names must be valid journal field names.
    std::vector<std::pair<std::string, std::string>> fields;
};

LogRecord log_record(LogEvent event, std::string message);

// Adds NATIVE_RUNTIME_OWNER/CHAT/JOB/UNIT and OBJECT_SYSTEMD_UNIT for `ref`.
// Ids that are not valid are still recorded (a refusal names what was
// sent), but give no unit.
void add_session(LogRecord& record, const SessionRef& ref);

// A refused request (any D-Bus method): warning, with the caller's UID and
// PID, the method, the error name and the session when known. The kind of
// event follows the error: HardeningNotApplied and PreflightFailed have
// their own ids; file operations are FileOperationRefused.
LogRecord refusal_record(std::string_view method, const Caller& caller, const Error& error, const SessionRef& ref,
                         bool file_operation);

// How a session ended, from systemd's unit properties. Optional values are
// the ones systemd may not have (cgroup v1 has no memory peak).
struct SessionEnd {
    std::string result;
    std::int32_t code = 0;   // ExecMainCode (CLD_*)
    std::int32_t status = 0; // ExecMainStatus
    std::optional<std::uint64_t> runtime_usec;
    std::optional<std::uint64_t> memory_peak_bytes;
    std::optional<std::uint64_t> tasks_peak;
    std::optional<std::uint64_t> cpu_usage_nsec;
};

LogRecord session_end_record(const SessionRef& ref, const SessionEnd& end);

// The iovec payload: "MESSAGE=...", "PRIORITY=n", "SYSLOG_IDENTIFIER=...",
// "MESSAGE_ID=...", then the record's fields. Throws InvalidArgument for
// a field name journald would drop (not [A-Z0-9_], starting with '_' or a
// digit, longer than 64 bytes).
std::vector<std::string> journal_fields(const LogRecord& record, std::string_view identifier);

bool is_journal_field_name(std::string_view name);

} // namespace nr::core
