// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reads journal records by structured fields with sd-journal, the way
// `journalctl --since=... FIELD=value ...` does, for `status`'s gateway
// lines and its last records; and wakes `logs -f` when the journal changes.
// What to match is the caller's decision (core/gateway/gateway_usage.h,
// core/journal/log_query.h).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

struct sd_journal;

namespace nr::sys {

struct JournalRecord {
    std::uint64_t realtime_usec = 0;
    std::map<std::string, std::string> fields; // every field of the record
};

struct JournalQuery {
    // Alternatives of conjunctions of FIELD=value entries.
    std::vector<std::vector<std::string>> terms;
    std::optional<std::uint64_t> since_usec;
};

// Calls `sink` for each matching record, oldest first; stops when it
// returns false. Throws std::system_error when the journal cannot be read.
void read_journal(const JournalQuery& query, const std::function<bool(const JournalRecord&)>& sink);

// The newest `count` records matching `terms` (since_usec is not used),
// oldest first, read from the tail as `journalctl -n` does. Throws
// std::system_error when the journal cannot be read.
std::vector<JournalRecord> read_journal_tail(const std::vector<std::vector<std::string>>& terms, std::size_t count);

// Whether this process can read the system journal at all: sd-journal
// skips files it may not open, so without this an unprivileged reader
// would see an empty journal and report nothing as if nothing happened.
bool system_journal_readable();

// Every value `field` has anywhere in the system journal (matches do not
// apply, as sd_journal_query_unique documents).
std::set<std::string> unique_journal_values(const std::string& field);

// The system journal's change notification, for a caller that polls it
// with descriptors of its own. Changes from the moment it is constructed on
// are kept until changed() reads them, so none is missed between two polls.
class JournalWatch {
public:
    JournalWatch(); // throws std::system_error
    JournalWatch(const JournalWatch&) = delete;
    JournalWatch& operator=(const JournalWatch&) = delete;
    JournalWatch(JournalWatch&&) = delete;
    JournalWatch& operator=(JournalWatch&&) = delete;
    ~JournalWatch();

    [[nodiscard]] int fd() const { return fd_; }
    [[nodiscard]] short events() const;   // for poll()
    [[nodiscard]] int timeout_ms() const; // for poll(); -1: none
    // After poll() returned: whether records were added or files rotated.
    bool changed();

private:
    sd_journal* journal_ = nullptr;
    int fd_ = -1;
};

} // namespace nr::sys
