// SPDX-License-Identifier: Apache-2.0
#include "sys/journal/journal_reader.h"

#include <systemd/sd-journal.h>

#include <algorithm>
#include <ctime>
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

} // namespace

void read_journal(const JournalQuery& query, const std::function<bool(const JournalRecord&)>& sink)
{
    Journal journal;
    sd_journal* j = journal.get();
    add_terms(j, query.terms);
    if (query.since_usec) {
        check(sd_journal_seek_realtime_usec(j, *query.since_usec), "sd_journal_seek_realtime_usec");
    } else {
        check(sd_journal_seek_head(j), "sd_journal_seek_head");
    }
    for (;;) {
        const int r = sd_journal_next(j);
        check(r, "sd_journal_next");
        if (r == 0) {
            return;
        }
        const auto record = current(j);
        // Seeking lands on the nearest record, which may be older.
        if (query.since_usec && record.realtime_usec < *query.since_usec) {
            continue;
        }
        if (!sink(record)) {
            return;
        }
    }
}

std::vector<JournalRecord> read_journal_tail(const std::vector<std::vector<std::string>>& terms, std::size_t count)
{
    Journal journal;
    sd_journal* j = journal.get();
    add_terms(j, terms);
    check(sd_journal_seek_tail(j), "sd_journal_seek_tail");
    std::vector<JournalRecord> records;
    while (records.size() < count) {
        const int r = sd_journal_previous(j);
        check(r, "sd_journal_previous");
        if (r == 0) {
            break;
        }
        records.push_back(current(j));
    }
    std::reverse(records.begin(), records.end());
    return records;
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

JournalWatch::JournalWatch()
{
    check(sd_journal_open(&journal_, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM), "opening the journal");
    // Sets up the inotify watches now: what changes from here on is queued.
    fd_ = sd_journal_get_fd(journal_);
    if (fd_ < 0) {
        sd_journal_close(journal_);
        check(fd_, "sd_journal_get_fd");
    }
}

JournalWatch::~JournalWatch()
{
    sd_journal_close(journal_);
}

short JournalWatch::events() const
{
    const int events = sd_journal_get_events(journal_);
    check(events, "sd_journal_get_events");
    return static_cast<short>(events);
}

int JournalWatch::timeout_ms() const
{
    std::uint64_t usec = 0;
    check(sd_journal_get_timeout(journal_, &usec), "sd_journal_get_timeout");
    if (usec == static_cast<std::uint64_t>(-1)) {
        return -1;
    }
    // An absolute CLOCK_MONOTONIC time; poll() takes milliseconds from now.
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    const auto now_usec =
        static_cast<std::uint64_t>(now.tv_sec) * 1000000 + static_cast<std::uint64_t>(now.tv_nsec) / 1000;
    return usec <= now_usec ? 0 : static_cast<int>(std::min<std::uint64_t>((usec - now_usec + 999) / 1000, 60000));
}

bool JournalWatch::changed()
{
    const int r = sd_journal_process(journal_);
    check(r, "sd_journal_process");
    return r == SD_JOURNAL_APPEND || r == SD_JOURNAL_INVALIDATE;
}

} // namespace nr::sys
