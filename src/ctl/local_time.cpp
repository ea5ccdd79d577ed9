// SPDX-License-Identifier: Apache-2.0
#include "ctl/local_time.h"

#include <array>
#include <ctime>

namespace nr::ctl {

std::string local_time(std::uint64_t realtime_usec, const char* format)
{
    constexpr std::uint64_t kUsecPerSec = 1000000;
    const auto secs = static_cast<std::time_t>(realtime_usec / kUsecPerSec);
    std::tm tm{};
    localtime_r(&secs, &tm);
    std::array<char, 64> text{};
    (void)std::strftime(text.data(), text.size(), format, &tm);
    return text.data();
}

} // namespace nr::ctl
