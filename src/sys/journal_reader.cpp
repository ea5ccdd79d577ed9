#include "sys/journal_reader.h"

#include <systemd/sd-journal.h>

#include <deque>
#include <system_error>

namespace nr::sys {

namespace {

class Journal {
public:
    Journal()
    {
        const int r = sd_journal_open(&journal_, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM);
        if (r < 0) {
            throw std::system_error(-r, std::generic_category(), "opening the journal");
        }
    }
    Journal(const Journal&) = delete;
    Journal& operator=(const Journal&) = delete;
    Journal(Journal&&) = delete;
    Journal& operator=(Journal&&) = delete;
    ~Journal() { sd_journal_close(journal_); }

    [[nodiscard]] sd_journal* get() const { return journal_; }

private:
    sd_journal* journal_ = nullptr;
};

void check(int r, const char* what)
{
    if (r < 0) {
        throw std::system_error(-r, std::generic_category(), what);
    }
}

} // namespace

std::vector<JournalRecord> read_journal(const std::vector<std::vector<std::string>>& terms,
                                        const std::vector<std::string>& wanted_fields, std::size_t newest)
{
    Journal journal;
    bool first = true;
    for (const auto& term : terms) {
        if (!first) {
            check(sd_journal_add_disjunction(journal.get()), "sd_journal_add_disjunction");
        }
        first = false;
        for (const auto& match : term) {
            check(sd_journal_add_match(journal.get(), match.data(), match.size()), "sd_journal_add_match");
        }
    }
    std::deque<JournalRecord> records;
    check(sd_journal_seek_head(journal.get()), "sd_journal_seek_head");
    for (;;) {
        const int r = sd_journal_next(journal.get());
        check(r, "sd_journal_next");
        if (r == 0) {
            break;
        }
        JournalRecord record;
        check(sd_journal_get_realtime_usec(journal.get(), &record.realtime_usec), "sd_journal_get_realtime_usec");
        for (const auto& field : wanted_fields) {
            const void* data = nullptr;
            std::size_t length = 0;
            if (sd_journal_get_data(journal.get(), field.c_str(), &data, &length) >= 0 && length > field.size()) {
                // data is "FIELD=value"
                record.fields[field] =
                    std::string(static_cast<const char*>(data) + field.size() + 1, length - field.size() - 1);
            }
        }
        records.push_back(std::move(record));
        if (newest != 0 && records.size() > newest) {
            records.pop_front();
        }
    }
    return {records.begin(), records.end()};
}

} // namespace nr::sys
