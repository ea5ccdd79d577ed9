#include "sys/journal_writer.h"

#include <systemd/sd-journal.h>

#include <sys/uio.h>

#include <string>
#include <vector>

namespace nr::sys {

namespace {

std::string& identifier()
{
    static std::string name = "native-runtime";
    return name;
}

} // namespace

void set_log_identifier(std::string_view name)
{
    identifier() = std::string(name);
}

void write_log(const core::LogRecord& record) noexcept
{
    try {
        const auto fields = core::journal_fields(record, identifier());
        std::vector<iovec> iov;
        iov.reserve(fields.size());
        for (const auto& field : fields) {
            // sd_journal_sendv takes non-const bases but does not write them.
            iov.push_back(iovec{const_cast<char*>(field.data()), field.size()}); // NOLINT
        }
        (void)sd_journal_sendv(iov.data(), static_cast<int>(iov.size()));
    } catch (...) {
        // An invalid field name is a programming error the unit tests catch;
        // at run time the record is dropped rather than the request failed.
    }
}

} // namespace nr::sys
