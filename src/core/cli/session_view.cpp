// SPDX-License-Identifier: Apache-2.0
#include "core/cli/session_view.h"

#include <array>
#include <cstdio>
#include <limits>

namespace nr::core {

namespace {

constexpr std::uint64_t kUsecPerSec = 1000000;
constexpr std::uint64_t kMinute = 60;
constexpr std::uint64_t kHour = 60 * kMinute;
constexpr std::uint64_t kDay = 24 * kHour;

std::string two_units(std::uint64_t big, char big_unit, std::uint64_t small, char small_unit)
{
    std::array<char, 48> buf{};
    (void)std::snprintf(buf.data(), buf.size(), "%llu%c%02llu%c", static_cast<unsigned long long>(big), big_unit,
                        static_cast<unsigned long long>(small), small_unit);
    return buf.data();
}

} // namespace

std::optional<std::uint64_t> systemd_counter(std::uint64_t raw)
{
    if (raw == std::numeric_limits<std::uint64_t>::max()) {
        return std::nullopt;
    }
    return raw;
}

std::optional<std::uint64_t> systemd_timestamp(std::uint64_t raw)
{
    if (raw == 0 || raw == std::numeric_limits<std::uint64_t>::max()) {
        return std::nullopt;
    }
    return raw;
}

std::string format_age(std::uint64_t now_usec, std::optional<std::uint64_t> since_usec)
{
    if (!since_usec) {
        return "-";
    }
    // A clock step backwards must not show a huge unsigned age.
    const auto secs = now_usec > *since_usec ? (now_usec - *since_usec) / kUsecPerSec : 0;
    if (secs < kMinute) {
        return std::to_string(secs) + "s";
    }
    if (secs < kHour) {
        return two_units(secs / kMinute, 'm', secs % kMinute, 's');
    }
    if (secs < kDay) {
        return two_units(secs / kHour, 'h', (secs % kHour) / kMinute, 'm');
    }
    return two_units(secs / kDay, 'd', (secs % kDay) / kHour, 'h');
}

std::string format_bytes(std::optional<std::uint64_t> bytes)
{
    if (!bytes) {
        return "-";
    }
    constexpr std::array<char, 5> kUnits{'K', 'M', 'G', 'T', 'P'};
    constexpr double kStep = 1024.0;
    if (*bytes < 1024) {
        return std::to_string(*bytes) + "B";
    }
    auto value = static_cast<double>(*bytes) / kStep;
    std::size_t unit = 0;
    while (value >= kStep && unit + 1 < kUnits.size()) {
        value /= kStep;
        ++unit;
    }
    std::array<char, 32> buf{};
    (void)std::snprintf(buf.data(), buf.size(), "%.1f%c", value, kUnits.at(unit));
    return buf.data();
}

std::string format_count(std::optional<std::uint64_t> count)
{
    return count ? std::to_string(*count) : "-";
}

} // namespace nr::core
