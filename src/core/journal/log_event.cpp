// SPDX-License-Identifier: Apache-2.0
#include "core/journal/log_event.h"

#include "core/base/ids.h"
#include "core/base/unit_name.h"
#include "core/journal/journal_fields.h"

#include <array>
#include <cstdio>

namespace nr::core {

namespace {

struct EventInfo {
    LogEvent event;
    std::string_view id; // systemd-id128 new, fixed for good
    Priority priority;
};

// Changing an id breaks operators' filters and the installed catalog:
// add new kinds, never renumber old ones.
constexpr std::array kEvents{
    EventInfo{LogEvent::HelperStarted, "5f0d38464e85454cabea87191bdf94ab", Priority::Info},
    EventInfo{LogEvent::SessionStarted, "f67162d8350c4eb5af45a7cba697bbd4", Priority::Info},
    EventInfo{LogEvent::SessionEnded, "f1dc0c07edd447878916d8f850eb8023", Priority::Info},
    EventInfo{LogEvent::SessionRefused, "a8a2a6471bf648038cea7d70cd793637", Priority::Warning},
    EventInfo{LogEvent::SessionStopped, "f2bf048d2cbe4f4cbe62870a004ce507", Priority::Notice},
    EventInfo{LogEvent::HardeningNotApplied, "e49276278d3847c19fdcdd8c5e528644", Priority::Warning},
    EventInfo{LogEvent::PreflightFailed, "bd1693840ce044e6b6e683055abd5bef", Priority::Warning},
    EventInfo{LogEvent::FileOperationRefused, "afa1e46430fd47f388b24ca800e1eea1", Priority::Warning},
    EventInfo{LogEvent::FileEdited, "0e167b5a15c848938a75ba046155acfe", Priority::Info},
    EventInfo{LogEvent::LaunchFailed, "b11e73c3c20f49f1a6e8e1087bf52d9b", Priority::Error},
    EventInfo{LogEvent::SyscallsDenied, "234cbe6e50ab4976a731607b50444900", Priority::Notice},
    EventInfo{LogEvent::HelperTrouble, "41c213836c6a43c3a70015674a441382", Priority::Error},
    EventInfo{LogEvent::DropinsChanged, "b981aa6d8d2a4043a6c57b975dd258c0", Priority::Notice},
    EventInfo{LogEvent::PreflightCanary, "77d5f3354b034e12b5973066e257cede", Priority::Info},
    EventInfo{LogEvent::GatewayRequest, "9d5a010c37c04bb9af16d8420af5a24a", Priority::Info},
    EventInfo{LogEvent::GatewaySessionEnded, "4fc23767d38d4cf98e98dcd282c0a714", Priority::Info},
    EventInfo{LogEvent::GatewayRefusalsSummarized, "65eddd58ba2a4362a3f51b1db48bb9bd", Priority::Notice},
    EventInfo{LogEvent::GatewayFault, "d3b5a45f2ed54b01adcde41de9a487a1", Priority::Error},
    EventInfo{LogEvent::PolkitChecked, "35a2d9c85a3b46f58ffafa2b28ceb085", Priority::Notice},
};

const EventInfo& info(LogEvent event)
{
    for (const auto& entry : kEvents) {
        if (entry.event == event) {
            return entry;
        }
    }
    fail(ErrorKind::InvalidArgument, "unknown log event");
}

bool valid_id(IdKind kind, const std::string& value)
{
    try {
        validate_id(kind, value);
        return true;
    } catch (const Error&) {
        return false;
    }
}

std::string exit_code_name(std::int32_t code)
{
    switch (code) {
    case 1: return "exited";
    case 2: return "killed";
    case 3: return "dumped";
    default: return code == 0 ? "none" : std::to_string(code);
    }
}

std::string seconds_text(std::uint64_t usec)
{
    std::array<char, 32> buf{};
    (void)std::snprintf(buf.data(), buf.size(), "%.3fs", static_cast<double>(usec) / 1e6);
    return buf.data();
}

} // namespace

const std::vector<LogEvent>& all_log_events()
{
    static const std::vector<LogEvent> events = [] {
        std::vector<LogEvent> out;
        out.reserve(kEvents.size());
        for (const auto& entry : kEvents) {
            out.push_back(entry.event);
        }
        return out;
    }();
    return events;
}

std::string_view message_id(LogEvent event)
{
    return info(event).id;
}

Priority default_priority(LogEvent event)
{
    return info(event).priority;
}

LogRecord log_record(LogEvent event, std::string message)
{
    LogRecord record;
    record.event = event;
    record.priority = default_priority(event);
    record.message = std::move(message);
    return record;
}

void add_session(LogRecord& record, const SessionRef& ref)
{
    const auto add = [&record](const char* name, const std::string& value) {
        if (!value.empty()) {
            record.fields.emplace_back(name, value);
        }
    };
    add(kFieldOwner, ref.owner);
    add(kFieldChat, ref.chat);
    add(kFieldJob, ref.job);
    auto unit = ref.unit;
    if (unit.empty() && valid_id(IdKind::Owner, ref.owner) && valid_id(IdKind::Chat, ref.chat)) {
        unit = session_unit_name(ref.owner, ref.chat);
    }
    add(kFieldUnit, unit);
    add("OBJECT_SYSTEMD_UNIT", unit);
}

LogRecord refusal_record(std::string_view method, const Caller& caller, const Error& error, const SessionRef& ref,
                         bool file_operation)
{
    auto event = file_operation ? LogEvent::FileOperationRefused : LogEvent::SessionRefused;
    if (error.kind() == ErrorKind::HardeningNotApplied) {
        event = LogEvent::HardeningNotApplied;
    } else if (error.kind() == ErrorKind::PreflightFailed) {
        event = LogEvent::PreflightFailed;
    }
    const auto name = std::string(error_name(error.kind()));
    const auto uid = caller.uid ? std::to_string(*caller.uid) : std::string("?");
    const auto pid = caller.pid ? std::to_string(*caller.pid) : std::string("?");
    auto record = log_record(event, "refused " + std::string(method) + " from uid " + uid + " pid " + pid + ": " +
                                        name + ": " + error.what());
    // Every refusal is a warning, whatever its kind's usual level.
    record.priority = Priority::Warning;
    record.fields.emplace_back(kFieldMethod, std::string(method));
    record.fields.emplace_back(kFieldError, name);
    if (caller.uid) {
        record.fields.emplace_back(kFieldCallerUid, uid);
    }
    if (caller.pid) {
        record.fields.emplace_back(kFieldCallerPid, pid);
    }
    add_session(record, ref);
    return record;
}

LogRecord session_end_record(const SessionRef& ref, const SessionEnd& end)
{
    std::string message = (ref.unit.empty() ? std::string("session") : ref.unit) + " ended: result " + end.result +
                          ", " + exit_code_name(end.code) + " with status " + std::to_string(end.status);
    if (end.runtime_usec) {
        message += ", ran " + seconds_text(*end.runtime_usec);
    }
    if (end.memory_peak_bytes) {
        message += ", memory peak " + std::to_string(*end.memory_peak_bytes) + " bytes";
    }
    if (end.tasks_peak) {
        message += ", tasks peak " + std::to_string(*end.tasks_peak);
    }
    auto record = log_record(LogEvent::SessionEnded, message);
    // A failed session is worth an operator's attention; a clean one is not.
    if (end.result != "success") {
        record.priority = Priority::Warning;
    }
    add_session(record, ref);
    record.fields.emplace_back(kFieldResult, end.result);
    record.fields.emplace_back(kFieldExitCode, exit_code_name(end.code));
    record.fields.emplace_back(kFieldExitStatus, std::to_string(end.status));
    const auto optional = [&record](const char* name, const std::optional<std::uint64_t>& value) {
        if (value) {
            record.fields.emplace_back(name, std::to_string(*value));
        }
    };
    optional(kFieldRuntimeUsec, end.runtime_usec);
    optional(kFieldMemoryPeak, end.memory_peak_bytes);
    optional(kFieldTasksPeak, end.tasks_peak);
    optional(kFieldCpuUsageNsec, end.cpu_usage_nsec);
    return record;
}

bool is_journal_field_name(std::string_view name)
{
    if (name.empty() || name.size() > 64 || name.front() == '_' || (name.front() >= '0' && name.front() <= '9')) {
        return false;
    }
    for (const char c : name) {
        if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) {
            return false;
        }
    }
    return true;
}

std::vector<std::string> journal_fields(const LogRecord& record, std::string_view identifier)
{
    std::vector<std::string> out{
        "MESSAGE=" + record.message,
        "PRIORITY=" + std::to_string(static_cast<int>(record.priority)),
        "SYSLOG_IDENTIFIER=" + std::string(identifier),
        "MESSAGE_ID=" + std::string(message_id(record.event)),
    };
    for (const auto& [name, value] : record.fields) {
        if (!is_journal_field_name(name) || name == "MESSAGE" || name == "PRIORITY" || name == "MESSAGE_ID" ||
            name == "SYSLOG_IDENTIFIER") {
            fail(ErrorKind::InvalidArgument, "not a journal field this layer may set: '" + name + "'");
        }
        out.push_back(name + "=" + value);
    }
    return out;
}

} // namespace nr::core
