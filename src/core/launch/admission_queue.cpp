// SPDX-License-Identifier: Apache-2.0
#include "core/launch/admission_queue.h"

#include "core/base/error.h"

#include <algorithm>
#include <charconv>
#include <limits>

namespace nr::core {

namespace {

constexpr std::string_view kTicketPrefix = "ticket-";
constexpr std::size_t kTicketDigits = 20; // enough for any uint64_t

} // namespace

std::string ticket_name(std::uint64_t number)
{
    auto digits = std::to_string(number);
    return std::string(kTicketPrefix) + std::string(kTicketDigits - digits.size(), '0') + digits;
}

std::optional<std::uint64_t> parse_ticket_name(std::string_view name)
{
    if (name.size() != kTicketPrefix.size() + kTicketDigits || name.substr(0, kTicketPrefix.size()) != kTicketPrefix) {
        return std::nullopt;
    }
    const auto digits = name.substr(kTicketPrefix.size());
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return std::nullopt;
    }
    std::uint64_t value = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || ptr != digits.data() + digits.size() || value == 0) {
        return std::nullopt;
    }
    return value;
}

std::vector<std::uint64_t> tickets_in(const std::vector<std::string>& entry_names)
{
    std::vector<std::uint64_t> out;
    for (const auto& name : entry_names) {
        if (const auto number = parse_ticket_name(name)) {
            out.push_back(*number);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::uint64_t next_ticket(const std::vector<std::uint64_t>& present)
{
    const auto highest = present.empty() ? 0 : *std::max_element(present.begin(), present.end());
    if (highest == std::numeric_limits<std::uint64_t>::max()) {
        fail(ErrorKind::LaunchFailed, "the host-auth queue has run out of ticket numbers");
    }
    return highest + 1;
}

std::vector<std::uint64_t> tickets_ahead(const std::vector<std::uint64_t>& present, std::uint64_t mine)
{
    std::vector<std::uint64_t> out;
    std::copy_if(present.begin(), present.end(), std::back_inserter(out), [&](auto n) { return n < mine; });
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace nr::core
