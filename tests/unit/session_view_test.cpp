// SPDX-License-Identifier: Apache-2.0
#include "core/cli/session_view.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <limits>

using namespace nr::core;

namespace {
using nr::test::kSec;
constexpr auto kUnset = std::numeric_limits<std::uint64_t>::max();
} // namespace

TEST(ACounterSystemdDoesNotHave, IsShownAsADashNotAZero)
{
    EXPECT_EQ(systemd_counter(kUnset), std::nullopt);
    EXPECT_EQ(format_bytes(systemd_counter(kUnset)), "-");
    EXPECT_EQ(format_count(systemd_counter(kUnset)), "-");
    EXPECT_EQ(format_count(systemd_counter(0)), "0") << "a real zero stays a zero";
}

TEST(AnUnsetTimestamp, HasNoAge)
{
    EXPECT_EQ(systemd_timestamp(0), std::nullopt);
    EXPECT_EQ(format_age(100 * kSec, systemd_timestamp(0)), "-");
}

TEST(AnAge, IsShownInTheTwoLargestUnits)
{
    const std::uint64_t start = 1000 * kSec;
    EXPECT_EQ(format_age(start + 42 * kSec, start), "42s");
    EXPECT_EQ(format_age(start + 187 * kSec, start), "3m07s");
    EXPECT_EQ(format_age(start + (2 * 3600 + 5 * 60 + 9) * kSec, start), "2h05m");
    EXPECT_EQ(format_age(start + (3 * 86400 + 4 * 3600) * kSec, start), "3d04h");
    EXPECT_EQ(format_age(start - kSec, start), "0s") << "a clock step back is no huge age";
}

TEST(ByteCounts, UseBinaryUnits)
{
    EXPECT_EQ(format_bytes(512), "512B");
    EXPECT_EQ(format_bytes(1536), "1.5K");
    EXPECT_EQ(format_bytes(300ULL << 20U), "300.0M");
    EXPECT_EQ(format_bytes(2ULL << 30U), "2.0G");
}
