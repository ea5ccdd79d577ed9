// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>

namespace nr::ctl {

// A journal timestamp (microseconds since the epoch) in the local time zone,
// as strftime writes `format`; what status prints beside records and totals.
std::string local_time(std::uint64_t realtime_usec, const char* format);

} // namespace nr::ctl
