// SPDX-License-Identifier: Apache-2.0
#include "core/plan/owner_slice.h"

#include <gtest/gtest.h>

using namespace nr::core;

TEST(AnOwnerWithoutConfiguredLimits, GetsNoSliceProperties)
{
    EXPECT_TRUE(owner_slice_properties(OwnerLimits{}).empty());
}

TEST(ConfiguredOwnerLimits, BecomeTheSlicesMemoryMaxAndTasksMax)
{
    const auto properties = owner_slice_properties(OwnerLimits{std::uint64_t{4} << 30U, std::uint64_t{256}});
    ASSERT_EQ(properties.size(), 2U);
    EXPECT_EQ(std::get<std::uint64_t>(find_property(properties, "MemoryMax")->value), std::uint64_t{4} << 30U);
    EXPECT_EQ(std::get<std::uint64_t>(find_property(properties, "TasksMax")->value), 256U);
}

TEST(OnlyATasksLimit, SetsOnlyTasksMax)
{
    OwnerLimits limits;
    limits.tasks_max = 64;
    const auto properties = owner_slice_properties(limits);
    ASSERT_EQ(properties.size(), 1U);
    EXPECT_EQ(properties[0].name, "TasksMax");
}
