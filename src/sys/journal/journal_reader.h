#pragma once
// Reads journal records by structured fields with sd-journal, the way
// `journalctl FIELD=value ...` does: from the tail (-n), from a time
// (--since), following new records (-f). What to match is the caller's
// decision (core/journal/log_query.h).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace nr::sys {

struct JournalRecord {
    std::uint64_t realtime_usec = 0;
    std::uint64_t monotonic_usec = 0;
    std::string cursor;
    std::map<std::string, std::string> fields; // every field of the record
};

struct JournalQuery {
    // Alternatives of conjunctions of FIELD=value entries.
    std::vector<std::vector<std::string>> terms;
    // At most this many of the newest matching records; 0 for all.
    std::size_t lines = 0;
    std::optional<std::uint64_t> since_usec;
    // After the existing records, wait for new ones until `sink` says stop.
    bool follow = false;
};

// Calls `sink` for each matching record, oldest first; stops when it
// returns false. Throws std::system_error when the journal cannot be read.
void read_journal(const JournalQuery& query, const std::function<bool(const JournalRecord&)>& sink);

// Whether this process can read the system journal at all: sd-journal
// skips files it may not open, so without this an unprivileged reader
// would see an empty journal and report nothing as if nothing happened.
bool system_journal_readable();

// Every value `field` has anywhere in the system journal (matches do not
// apply, as sd_journal_query_unique documents).
std::set<std::string> unique_journal_values(const std::string& field);

} // namespace nr::sys
