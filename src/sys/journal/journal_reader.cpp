#include "sys/journal/journal_reader.h"

#include "core/journal/log_query.h"

#include <systemd/sd-journal.h>

#include <cstdlib>
#include <deque>
#include <system_error>

namespace nr::sys {

namespace {

void check(int r, const char* what)
{
    if (r < 0) {
        throw std::system_error(-r, std::generic_category(), what);
    }
}

class Journal {
public:
    Journal() { check(sd_journal_open(&journal_, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM), "opening the journal"); }
    Journal(const Journal&) = delete;
    Journal& operator=(const Journal&) = delete;
    Journal(Journal&&) = delete;
    Journal& operator=(Journal&&) = delete;
    ~Journal() { sd_journal_close(journal_); }

    [[nodiscard]] sd_journal* get() const { return journal_; }

private:
    sd_journal* journal_ = nullptr;
};

JournalRecord current(sd_journal* j)
{
    JournalRecord record;
    check(sd_journal_get_realtime_usec(j, &record.realtime_usec), "sd_journal_get_realtime_usec");
    sd_id128_t boot{};
    check(sd_journal_get_monotonic_usec(j, &record.monotonic_usec, &boot), "sd_journal_get_monotonic_usec");
    char* cursor = nullptr;
    if (sd_journal_get_cursor(j, &cursor) >= 0 && cursor != nullptr) {
        record.cursor = cursor;
        free(cursor); // NOLINT(cppcoreguidelines-no-malloc): owned by libsystemd
    }
    const void* data = nullptr;
    std::size_t length = 0;
    sd_journal_restart_data(j);
    while (sd_journal_enumerate_data(j, &data, &length) > 0) {
        const std::string entry(static_cast<const char*>(data), length);
        const auto eq = entry.find('=');
        if (eq != std::string::npos) {
            record.fields.emplace(entry.substr(0, eq), entry.substr(eq + 1));
        }
    }
    return record;
}

void add_terms(sd_journal* j, const std::vector<std::vector<std::string>>& terms)
{
    bool first = true;
    for (const auto& term : terms) {
        if (!first) {
            check(sd_journal_add_disjunction(j), "sd_journal_add_disjunction");
        }
        first = false;
        for (const auto& match : term) {
            check(sd_journal_add_match(j, match.data(), match.size()), "sd_journal_add_match");
        }
    }
}

// The records already there, as -n and --since select them. Returns false
// when the sink asked to stop; `printed` says whether anything was.
bool existing(sd_journal* j, const JournalQuery& query, const std::function<bool(const JournalRecord&)>& sink,
              bool& printed)
{
    const auto emit = [&](const JournalRecord& record) {
        printed = true;
        return sink(record);
    };
    if (query.since_usec) {
        // Forward from the time; with -n, only the newest of those.
        check(sd_journal_seek_realtime_usec(j, *query.since_usec), "sd_journal_seek_realtime_usec");
        std::deque<JournalRecord> kept;
        for (;;) {
            const int r = sd_journal_next(j);
            check(r, "sd_journal_next");
            if (r == 0) {
                break;
            }
            auto record = current(j);
            if (record.realtime_usec < *query.since_usec) {
                continue;
            }
            if (query.lines == 0) {
                if (!emit(record)) {
                    return false;
                }
                continue;
            }
            kept.push_back(std::move(record));
            if (kept.size() > query.lines) {
                kept.pop_front();
            }
        }
        for (const auto& record : kept) {
            if (!emit(record)) {
                return false;
            }
        }
        return true;
    }
    if (query.lines != 0) {
        // Seek from the tail: nothing older than the n-th newest is read.
        check(sd_journal_seek_tail(j), "sd_journal_seek_tail");
        const int r = sd_journal_previous_skip(j, query.lines);
        check(r, "sd_journal_previous_skip");
        if (r == 0) {
            return true;
        }
        if (!emit(current(j))) {
            return false;
        }
    } else {
        check(sd_journal_seek_head(j), "sd_journal_seek_head");
    }
    for (;;) {
        const int r = sd_journal_next(j);
        check(r, "sd_journal_next");
        if (r == 0) {
            return true;
        }
        if (!emit(current(j))) {
            return false;
        }
    }
}

} // namespace

void read_journal(const JournalQuery& query, const std::function<bool(const JournalRecord&)>& sink)
{
    Journal journal;
    sd_journal* j = journal.get();
    // Where following starts when no existing record is printed: the last
    // record of the journal as it is now.
    std::string resume;
    if (query.follow) {
        check(sd_journal_seek_tail(j), "sd_journal_seek_tail");
        if (sd_journal_previous(j) > 0) {
            resume = current(j).cursor;
        }
    }
    add_terms(j, query.terms);
    bool printed = false;
    const auto remember = [&](const JournalRecord& record) {
        resume = record.cursor;
        return sink(record);
    };
    if (!existing(j, query, remember, printed) || !query.follow) {
        return;
    }
    // New records are read without sd_journal's matches and matched here:
    // systemd 252's sd_journal_next, following several alternatives, was
    // seen to skip a matching record written between two others.
    sd_journal_flush_matches(j);
    if (resume.empty()) {
        check(sd_journal_seek_head(j), "sd_journal_seek_head");
    } else {
        check(sd_journal_seek_cursor(j, resume.c_str()), "sd_journal_seek_cursor");
        check(sd_journal_next(j), "sd_journal_next"); // onto the resumed record itself
    }
    for (;;) {
        const int r = sd_journal_next(j);
        check(r, "sd_journal_next");
        if (r == 0) {
            check(sd_journal_wait(j, static_cast<std::uint64_t>(-1)), "sd_journal_wait");
            continue;
        }
        const auto record = current(j);
        if (core::record_matches(record.fields, query.terms) && !sink(record)) {
            return;
        }
    }
}

bool system_journal_readable()
{
    const Journal journal;
    return sd_journal_has_runtime_files(journal.get()) > 0 || sd_journal_has_persistent_files(journal.get()) > 0;
}

std::set<std::string> unique_journal_values(const std::string& field)
{
    Journal journal;
    check(sd_journal_query_unique(journal.get(), field.c_str()), "sd_journal_query_unique");
    std::set<std::string> out;
    const void* data = nullptr;
    std::size_t length = 0;
    while (sd_journal_enumerate_unique(journal.get(), &data, &length) > 0) {
        if (length > field.size() + 1) {
            out.emplace(static_cast<const char*>(data) + field.size() + 1, length - field.size() - 1);
        }
    }
    return out;
}

} // namespace nr::sys
