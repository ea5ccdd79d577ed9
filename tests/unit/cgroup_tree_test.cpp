// SPDX-License-Identifier: Apache-2.0
// status's CGroup: block (core/cli/cgroup_tree.h): drawn as systemctl draws
// it, escaped and bounded, whatever the session's processes call themselves.

#include "core/cli/cgroup_tree.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace nr::core;
using namespace std::string_literals;

namespace {

constexpr const char* kUnit = "/nativeruntime.slice/nativeruntime-alice.slice/native-runtime-alice-c1.service";

CgroupProcess process(std::string cgroup, std::uint32_t pid, std::string cmdline)
{
    return CgroupProcess{std::move(cgroup), pid, std::move(cmdline), std::nullopt};
}

} // namespace

TEST(TheProcessTree, StartsWithTheControlGroupAndDrawsItsProcessesByPid)
{
    const auto lines = cgroup_tree_lines(kUnit,
                                         {process("", 30,
                                                  "sleep\0"s
                                                  "60\0"s),
                                          process("", 10, "native-runtime-launch\0ref\0"s)},
                                         {});
    const std::vector<std::string> expected{kUnit, "├─10 native-runtime-launch ref", "└─30 sleep 60"};
    EXPECT_EQ(lines, expected);
}

TEST(TheProcessTree, DrawsSubGroupsAfterTheProcessesWithTheBarsOfTheLevelsAbove)
{
    const auto lines = cgroup_tree_lines(kUnit,
                                         {process("payload/inner", 40, "b\0"s), process("payload", 20, "a\0"s),
                                          process("", 10, "launch\0"s), process("zz", 50, "c\0"s)},
                                         {});
    const std::vector<std::string> expected{kUnit,       "├─10 launch", "├─payload", "│ ├─20 a",
                                            "│ └─inner", "│   └─40 b",  "└─zz",      "  └─50 c"};
    EXPECT_EQ(lines, expected);
}

TEST(TheProcessTree, OfAnEmptyGroupIsItsPathAlone)
{
    EXPECT_EQ(cgroup_tree_lines(kUnit, {}, {}), std::vector<std::string>{kUnit});
}

TEST(TheProcessTree, EscapesAnsiSequencesASessionPutInItsArgv)
{
    const auto lines = cgroup_tree_lines(kUnit, {process("", 7, "sh\0\x1b[2J\x1b]0;title\x07\0"s)}, {});
    ASSERT_EQ(lines.size(), 2U);
    EXPECT_EQ(lines[1], "└─7 sh \\x1b[2J\\x1b]0;title\\x07");
    EXPECT_EQ(lines[1].find('\x1b'), std::string::npos);
}

TEST(TheProcessTree, EscapesASubGroupName)
{
    const auto lines = cgroup_tree_lines(kUnit, {process("x\x1b[1m", 7, "a\0"s)}, {});
    EXPECT_EQ(lines.at(1), "└─x\\x1b[1m");
}

TEST(TheProcessTree, CutsEachLineToTheColumnsGiven)
{
    const auto lines = cgroup_tree_lines("/a.service", {process("", 7, "python3\0-c\0long program text\0"s)},
                                         CgroupTreeLimits{50, 16});
    EXPECT_EQ(lines.at(1), "└─7 python3 -c …");
}

TEST(TheProcessTree, DrawsAtMostTheLimitAndCountsTheRest)
{
    std::vector<CgroupProcess> many;
    for (std::uint32_t pid = 100; pid < 110; ++pid) {
        many.push_back(process("", pid, "fork\0"s));
    }
    const auto lines = cgroup_tree_lines(kUnit, many, CgroupTreeLimits{3, 0}, 5);
    const std::vector<std::string> expected{kUnit, "├─100 fork", "├─101 fork", "└─102 fork",
                                            "(12 more processes not shown)"};
    EXPECT_EQ(lines, expected);
}

TEST(AProcessCommand, FallsBackToTheBracketedNameThenToAQuestionMark)
{
    EXPECT_EQ(process_command({"", 1,
                               "sleep\0"s
                               "60\0"s,
                               "sleep"}),
              "sleep 60");
    EXPECT_EQ(process_command({"", 1, std::nullopt, "sleep"}), "[sleep]") << "another user's cmdline";
    EXPECT_EQ(process_command({"", 1, ""s, "kworker\x1b"}), "[kworker\\x1b]") << "empty cmdline, escaped name";
    EXPECT_EQ(process_command({"", 1, std::nullopt, std::nullopt}), "?");
}
