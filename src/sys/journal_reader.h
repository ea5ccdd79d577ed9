#pragma once
// Reads journal records by structured fields with sd-journal, the way
// `journalctl FIELD=value` does. What to match is the caller's decision.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace nr::sys {

struct JournalRecord {
    std::uint64_t realtime_usec = 0;
    std::map<std::string, std::string> fields; // only the requested ones that are present
};

// Records matching any of `terms`, where a term matches when all of its
// FIELD=value entries do. Oldest first; only the newest `newest` when it is
// not 0. Throws std::system_error when the journal cannot be opened.
std::vector<JournalRecord> read_journal(const std::vector<std::vector<std::string>>& terms,
                                        const std::vector<std::string>& wanted_fields, std::size_t newest);

} // namespace nr::sys
