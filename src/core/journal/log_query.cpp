#include "core/journal/log_query.h"

#include "core/base/error.h"
#include "core/base/ids.h"
#include "core/base/unit_name.h"
#include "core/journal/journal_fields.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <ctime>

namespace nr::core {

namespace {

constexpr std::uint64_t kUsecPerSec = 1000000;

std::vector<std::string> helper_term(const std::string& owner)
{
    return {"_UID=0", "_SYSTEMD_UNIT=" + std::string(kHelperUnit), field_assignment(kFieldOwner, owner)};
}

// The egress gateway's records of the owner's requests (its unit is
// DynamicUser, so no _UID= is fixed; _SYSTEMD_UNIT= is journald's own).
std::vector<std::string> gateway_term(const std::string& owner)
{
    return {"_SYSTEMD_UNIT=" + std::string(kGatewayUnit), field_assignment(kFieldOwner, owner)};
}

std::vector<std::string> systemd_term(const std::string& unit)
{
    return {"_PID=1", "_UID=0", "UNIT=" + unit};
}

[[noreturn]] void bad_since(std::string_view text)
{
    fail(ErrorKind::InvalidArgument, "--since: cannot parse '" + std::string(text) +
                                         "' (use 'YYYY-MM-DD [HH:MM[:SS]]', '@SECONDS', 'today', "
                                         "'yesterday', 'now', '-5min' or '5 min ago')");
}

std::optional<std::uint64_t> number(std::string_view text)
{
    std::uint64_t value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end || text.empty()) {
        return std::nullopt;
    }
    return value;
}

std::optional<std::uint64_t> unit_seconds(std::string_view unit)
{
    if (unit == "s" || unit == "sec" || unit == "second" || unit == "seconds") {
        return 1;
    }
    if (unit == "m" || unit == "min" || unit == "minute" || unit == "minutes") {
        return 60;
    }
    if (unit == "h" || unit == "hour" || unit == "hours") {
        return 3600;
    }
    if (unit == "d" || unit == "day" || unit == "days") {
        return 86400;
    }
    return std::nullopt;
}

// "5min", "5 min", "30s": seconds.
std::optional<std::uint64_t> span_seconds(std::string_view text)
{
    while (!text.empty() && text.back() == ' ') {
        text.remove_suffix(1);
    }
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
        ++digits;
    }
    const auto count = number(text.substr(0, digits));
    auto rest = text.substr(digits);
    while (!rest.empty() && rest.front() == ' ') {
        rest.remove_prefix(1);
    }
    const auto unit = unit_seconds(rest);
    if (!count || !unit) {
        return std::nullopt;
    }
    return *count * *unit;
}

std::uint64_t local_midnight(std::uint64_t now_usec, int days_back)
{
    auto secs = static_cast<std::time_t>(now_usec / kUsecPerSec);
    std::tm tm{};
    localtime_r(&secs, &tm);
    tm.tm_hour = 0;
    tm.tm_min = 0;
    tm.tm_sec = 0;
    tm.tm_mday -= days_back;
    tm.tm_isdst = -1;
    return static_cast<std::uint64_t>(std::mktime(&tm)) * kUsecPerSec;
}

std::optional<std::uint64_t> calendar(std::string_view text)
{
    std::tm tm{};
    int year = 0;
    int month = 0;
    int day = 0;
    int hour = 0;
    int minute = 0;
    int second = 0;
    const std::string copy(text);
    char tail = 0;
    const int n =
        std::sscanf(copy.c_str(), "%4d-%2d-%2d %2d:%2d:%2d%c", &year, &month, &day, &hour, &minute, &second, &tail);
    // Exactly one of the three shapes, nothing after it.
    const bool shape_ok =
        (n == 3 && text.size() == 10) || (n == 5 && text.size() == 16) || (n == 6 && text.size() == 19);
    if (!shape_ok || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60 ||
        hour < 0 || minute < 0 || second < 0) {
        return std::nullopt;
    }
    tm.tm_year = year - 1900;
    tm.tm_mon = month - 1;
    tm.tm_mday = day;
    tm.tm_hour = hour;
    tm.tm_min = minute;
    tm.tm_sec = second;
    tm.tm_isdst = -1;
    const auto secs = std::mktime(&tm);
    if (secs < 0 || tm.tm_mday != day) {
        return std::nullopt;
    }
    return static_cast<std::uint64_t>(secs) * kUsecPerSec;
}

} // namespace

std::vector<std::vector<std::string>> session_log_terms(const std::string& owner, const std::string& chat,
                                                        const std::set<std::string>& units)
{
    validate_id(IdKind::Owner, owner);
    if (chat.empty()) {
        std::vector<std::vector<std::string>> terms{
            helper_term(owner), gateway_term(owner), {"_SYSTEMD_SLICE=" + owner_slice_name(owner)}};
        for (const auto& unit : owner_units(owner, units)) {
            terms.push_back(systemd_term(unit));
        }
        return terms;
    }
    validate_id(IdKind::Chat, chat);
    auto helper = helper_term(owner);
    helper.push_back(field_assignment(kFieldChat, chat));
    auto gateway = gateway_term(owner);
    gateway.push_back(field_assignment(kFieldChat, chat));
    const auto unit = session_unit_name(owner, chat);
    return {helper, gateway, systemd_term(unit), {"_SYSTEMD_UNIT=" + unit}};
}

bool record_matches(const std::map<std::string, std::string>& fields,
                    const std::vector<std::vector<std::string>>& terms)
{
    return std::any_of(terms.begin(), terms.end(), [&fields](const std::vector<std::string>& term) {
        return std::all_of(term.begin(), term.end(), [&fields](const std::string& match) {
            const auto eq = match.find('=');
            if (eq == std::string::npos) {
                return false;
            }
            const auto it = fields.find(match.substr(0, eq));
            return it != fields.end() && it->second == match.substr(eq + 1);
        });
    });
}

std::set<std::string> owner_units(const std::string& owner, const std::set<std::string>& units)
{
    validate_id(IdKind::Owner, owner);
    // The escaped owner has no '-', so this prefix names one owner only.
    const auto prefix = std::string(kUnitPrefix) + systemd_escape(owner) + "-";
    std::set<std::string> out;
    for (const auto& unit : units) {
        if (unit.size() > prefix.size() && unit.compare(0, prefix.size(), prefix) == 0 && is_session_unit_name(unit)) {
            out.insert(unit);
        }
    }
    return out;
}

std::uint64_t parse_since(std::string_view text, std::uint64_t now_usec)
{
    if (text == "now") {
        return now_usec;
    }
    if (text == "today") {
        return local_midnight(now_usec, 0);
    }
    if (text == "yesterday") {
        return local_midnight(now_usec, 1);
    }
    if (!text.empty() && text.front() == '@') {
        const auto secs = number(text.substr(1));
        if (!secs) {
            bad_since(text);
        }
        return *secs * kUsecPerSec;
    }
    std::optional<std::uint64_t> back;
    if (!text.empty() && text.front() == '-') {
        back = span_seconds(text.substr(1));
    } else if (text.size() > 4 && text.substr(text.size() - 4) == " ago") {
        back = span_seconds(text.substr(0, text.size() - 4));
    }
    if (back) {
        const auto usec = *back * kUsecPerSec;
        return usec > now_usec ? 0 : now_usec - usec;
    }
    if (const auto at = calendar(text)) {
        return *at;
    }
    bad_since(text);
}

} // namespace nr::core
