// SPDX-License-Identifier: Apache-2.0
#include "core/plan/unit_properties.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>

using namespace nr::core;

namespace {

UnitProperties sample()
{
    return {
        {"Slice", std::string("native-runtime-alice.slice")},
        {"NoNewPrivileges", true},
        {"MemoryMax", std::uint64_t{1024}},
        {"ExecStart", ExecCommand{"/usr/libexec/x", {"/usr/libexec/x", "--claim", "t"}}},
    };
}

} // namespace

TEST(FindProperty, ReturnsThePropertyWithThatName)
{
    const auto props = sample();
    const auto* slice = find_property(props, "Slice");
    ASSERT_NE(slice, nullptr);
    EXPECT_EQ(slice->name, "Slice");
    ASSERT_TRUE(std::holds_alternative<std::string>(slice->value));
    EXPECT_EQ(std::get<std::string>(slice->value), "native-runtime-alice.slice");

    const auto* memory = find_property(props, "MemoryMax");
    ASSERT_NE(memory, nullptr);
    EXPECT_EQ(std::get<std::uint64_t>(memory->value), 1024U);
}

TEST(FindProperty, ReturnsNullForAnAbsentName)
{
    const auto props = sample();
    EXPECT_EQ(find_property(props, "Environment"), nullptr);
    EXPECT_EQ(find_property(props, "slice"), nullptr); // names are case-sensitive
    EXPECT_EQ(find_property(UnitProperties{}, "Slice"), nullptr);
}

TEST(FindProperty, ReturnsTheFirstOfDuplicateNames)
{
    UnitProperties props{{"User", std::string("1000")}, {"User", std::string("0")}};
    const auto* user = find_property(props, "User");
    ASSERT_NE(user, nullptr);
    EXPECT_EQ(user, &props.front());
}

TEST(AddingAJournalField, AppendsToTheExistingLogExtraFields)
{
    UnitProperties props{{"LogExtraFields", JournalFields{{"NATIVE_RUNTIME_OWNER=alice"}}}};
    add_journal_field(props, "NATIVE_RUNTIME_WORKER=:1.42");
    ASSERT_EQ(props.size(), 1U);
    EXPECT_EQ(std::get<JournalFields>(props[0].value).fields,
              (std::vector<std::string>{"NATIVE_RUNTIME_OWNER=alice", "NATIVE_RUNTIME_WORKER=:1.42"}));
}

TEST(AddingAJournalField, CreatesLogExtraFieldsWhenThereAreNone)
{
    UnitProperties props;
    add_journal_field(props, "NATIVE_RUNTIME_WORKER=:1.42");
    ASSERT_NE(find_property(props, "LogExtraFields"), nullptr);
}
