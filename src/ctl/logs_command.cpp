// `native-runtimectl logs --owner O [--chat C] [-n N] [--since T] [-f]
// [-o short|json]`: an owner's or one chat's journal records, like
// journalctl, but only those whose writer journald vouches for (the helper
// as root in its own unit, systemd about the session's unit, processes in
// the session's unit or the owner's slice); see core/journal/log_query.h for the
// matches and docs/operator-guide.md for the equivalent journalctl line.

#include "core/base/error.h"
#include "core/cli/json_output.h"
#include "core/journal/log_query.h"
#include "ctl/exit_status.h"
#include "ctl/operator_commands.h"
#include "sys/journal/journal_reader.h"

#include <array>
#include <chrono>
#include <ctime>
#include <iostream>

namespace nr::ctl {

namespace {

constexpr std::size_t kFollowDefaultLines = 10;

std::string field(const sys::JournalRecord& record, const std::string& name)
{
    const auto it = record.fields.find(name);
    return it == record.fields.end() ? std::string() : it->second;
}

// journalctl's "short": "Dec 02 20:14:38 host identifier[pid]: message",
// in local time.
void print_short(const sys::JournalRecord& record)
{
    const auto secs = static_cast<std::time_t>(record.realtime_usec / 1000000);
    std::tm tm{};
    localtime_r(&secs, &tm);
    std::array<char, 32> stamp{};
    (void)std::strftime(stamp.data(), stamp.size(), "%b %d %H:%M:%S", &tm);
    auto source = field(record, "SYSLOG_IDENTIFIER");
    if (source.empty()) {
        source = field(record, "_COMM");
    }
    if (source.empty()) {
        source = "unknown";
    }
    const auto pid = field(record, "_PID");
    std::cout << stamp.data() << ' ' << field(record, "_HOSTNAME") << ' ' << source
              << (pid.empty() ? "" : "[" + pid + "]") << ": " << field(record, "MESSAGE") << '\n';
}

// journalctl's "json": one object per line, every field a string, plus the
// cursor and the timestamps it adds.
void print_json(const sys::JournalRecord& record)
{
    core::Json object{{"__CURSOR", record.cursor},
                      {"__REALTIME_TIMESTAMP", std::to_string(record.realtime_usec)},
                      {"__MONOTONIC_TIMESTAMP", std::to_string(record.monotonic_usec)}};
    for (const auto& [name, value] : record.fields) {
        object[name] = value;
    }
    std::cout << core::json_text(object, core::JsonStyle::Short) << '\n';
}

std::uint64_t now_usec()
{
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count());
}

} // namespace

int session_logs(const LogsOptions& options)
{
    // Failures map through guarded(): a bad --since is a usage error (64),
    // a journal that cannot be read an I/O error (74).
    sys::JournalQuery query;
    // systemd's records about an owner's units can only be matched by
    // unit name: the names come from the journal's own index of UNIT=
    // values, and only those of this owner's sessions are used.
    const auto units = options.chat.empty() ? sys::unique_journal_values("UNIT") : std::set<std::string>{};
    query.terms = core::session_log_terms(options.owner, options.chat, units);
    query.follow = options.follow;
    query.lines = options.lines;
    if (options.follow && !options.lines_given) {
        query.lines = kFollowDefaultLines;
    }
    if (!options.since.empty()) {
        query.since_usec = core::parse_since(options.since, now_usec());
    }
    const bool json = options.json || options.output == "json";
    sys::read_journal(query, [&](const sys::JournalRecord& record) {
        json ? print_json(record) : print_short(record);
        if (options.follow) {
            std::cout.flush();
        }
        return static_cast<bool>(std::cout);
    });
    return 0;
}

} // namespace nr::ctl
