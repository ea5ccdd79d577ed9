// SPDX-License-Identifier: Apache-2.0
// An adapter's `protected_home_paths` (docs/configuration.md).
#include "core/config/config.h"

#include "config_error.h"
#include "config_fixtures.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

using namespace nr::core;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

namespace {

using nr::test::parse;

const char* const kKey = "adapters.claude.protected_home_paths";

// The key at line 8 of the claude profile, its entries from line 9 on.
std::string with_entries(const std::string& entries)
{
    return nr::test::minimal_config() + "    protected_home_paths:\n" + entries;
}

} // namespace

TEST(AnAdapterWithoutProtectedHomePaths, ProtectsNothing)
{
    EXPECT_THAT(parse(nr::test::minimal_config()).adapters.at("claude").protected_home_paths, IsEmpty());
}

TEST(AnAdaptersProtectedHomePaths, AreReadInOrderWithTheirKind)
{
    const auto c = parse(with_entries("      - .claude/settings.json\n"
                                      "      - .claude/hooks/\n"
                                      "      - .bashrc\n"));
    EXPECT_THAT(c.adapters.at("claude").protected_home_paths,
                ElementsAre(ProtectedPath{".claude/settings.json", false}, ProtectedPath{".claude/hooks", true},
                            ProtectedPath{".bashrc", false}));
}

TEST(AnEmptyListOfProtectedHomePaths, IsAccepted)
{
    EXPECT_THAT(
        parse(nr::test::minimal_config() + "    protected_home_paths: []\n").adapters.at("claude").protected_home_paths,
        IsEmpty());
}

TEST(AProtectedHomePathThatLeavesOrNamesTheHome, IsRefusedAtItsOwnLine)
{
    EXPECT_CONFIG_ERROR(with_entries("      - .bashrc\n      - ../.bashrc\n"), 10, kKey, "'.' or '..' component");
    EXPECT_CONFIG_ERROR(with_entries("      - /etc/passwd\n"), 9, kKey, "must be relative");
    EXPECT_CONFIG_ERROR(with_entries("      - \"/\"\n"), 9, kKey, "must be relative");
    EXPECT_CONFIG_ERROR(with_entries("      - ./\n"), 9, kKey, "'.' or '..' component");
    EXPECT_CONFIG_ERROR(with_entries("      - \"\"\n"), 9, kKey, "is empty");
    EXPECT_CONFIG_ERROR(with_entries("      - a//b\n"), 9, kKey, "empty component");
    EXPECT_CONFIG_ERROR(with_entries("      - a/./b\n"), 9, kKey, "'.' or '..' component");
}

TEST(AProtectedHomePathWithANulOrANewline, IsRefused)
{
    EXPECT_CONFIG_ERROR(with_entries("      - \".bash\\0rc\"\n"), 9, kKey, "control character");
    EXPECT_CONFIG_ERROR(with_entries("      - \".bashrc\\n\"\n"), 9, kKey, "control character");
}

TEST(AProtectedHomePathListedTwiceOrBeneathAnother, IsRefusedAtTheLaterEntry)
{
    EXPECT_CONFIG_ERROR(with_entries("      - .bashrc\n      - .profile\n      - .bashrc\n"), 11, kKey,
                        ".bashrc is listed twice");
    EXPECT_CONFIG_ERROR(with_entries("      - .claude/\n      - .claude/settings.json\n"), 10, kKey, "overlap");
}

TEST(ProtectedHomePathsOverTheBounds, AreRefused)
{
    EXPECT_CONFIG_ERROR(with_entries("      - " + std::string(1025, 'a') + "\n"), 9, kKey, "longer than 1024 bytes");
    std::string entries;
    for (int i = 0; i < 65; ++i) {
        entries += "      - p" + std::to_string(i) + "\n";
    }
    EXPECT_CONFIG_ERROR(with_entries(entries), 9 + 64, kKey, "more than 64");
}

TEST(ProtectedHomePathsOfTheWrongType, AreRefused)
{
    EXPECT_CONFIG_ERROR(nr::test::minimal_config() + "    protected_home_paths: .bashrc\n", 8, kKey, "expected a list");
    EXPECT_CONFIG_ERROR(with_entries("      - [a, b]\n"), 9, kKey, "expected a string");
}

TEST(EveryAdaptersProtectedHomePaths, AreProtectedTogetherForEverySession)
{
    const auto c = parse(with_entries("      - .claude/settings.json\n      - .bashrc\n") +
                         "  codex:\n"
                         "    executable: /usr/bin/codex\n"
                         "    protected_home_paths: [.codex/config.toml, .bashrc]\n");
    EXPECT_THAT(c.protected_home_paths,
                ElementsAre(ProtectedPath{".bashrc", false}, ProtectedPath{".claude/settings.json", false},
                            ProtectedPath{".codex/config.toml", false}));
}

TEST(APathThatOneAdapterProtectsAsAFileAndAnotherAsADirectory, IsRefused)
{
    EXPECT_CONFIG_ERROR(with_entries("      - .claude/agents\n") + "  codex:\n"
                                                                   "    executable: /usr/bin/codex\n"
                                                                   "    protected_home_paths: [.claude/agents/]\n",
                        6, "adapters", "a file for one adapter and a directory for another");
}
