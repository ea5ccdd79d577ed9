// SPDX-License-Identifier: Apache-2.0
#pragma once
// How the CLI shows a session read from systemd: the row's fields and the
// formatting of counters systemd may not have (cgroup v1 has no
// MemoryCurrent on many hosts; a "-" is shown rather than a made-up 0).

#include <cstdint>
#include <optional>
#include <string>

namespace nr::core {

struct SessionView {
    std::string unit;
    std::string owner;
    std::string chat;
    std::string job;
    std::string adapter;
    std::string active_state;
    std::string sub_state;
    std::string user;
    std::string description;
    std::uint32_t main_pid = 0;
    std::optional<std::uint64_t> active_since_usec; // CLOCK_REALTIME, microseconds
    std::optional<std::uint64_t> memory_bytes;
    std::optional<std::uint64_t> memory_max_bytes;
    std::optional<std::uint64_t> tasks;
    std::optional<std::uint64_t> tasks_max;
};

// systemd reports an unknown or unlimited counter as UINT64_MAX (and an
// unset timestamp as 0): both become nullopt.
std::optional<std::uint64_t> systemd_counter(std::uint64_t raw);
std::optional<std::uint64_t> systemd_timestamp(std::uint64_t raw);

// "-", "42s", "3m07s", "2h05m", "3d04h".
std::string format_age(std::uint64_t now_usec, std::optional<std::uint64_t> since_usec);

// "-", "512B", "1.5K", "300.0M", "2.0G" (binary units, as systemctl status).
std::string format_bytes(std::optional<std::uint64_t> bytes);

// "-" or the decimal number.
std::string format_count(std::optional<std::uint64_t> count);

} // namespace nr::core
