// SPDX-License-Identifier: Apache-2.0
#include "core/launch/protected_paths.h"

#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace nr::core;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

namespace {

std::vector<ProtectedPath> list_of(const std::vector<std::string>& entries)
{
    std::vector<ProtectedPath> out;
    for (const auto& entry : entries) {
        out.push_back(parse_protected_path(entry));
    }
    return out;
}

} // namespace

TEST(AProtectedPathWithoutATrailingSlash, NamesAFile)
{
    EXPECT_EQ(parse_protected_path(".claude/settings.json"), (ProtectedPath{".claude/settings.json", false}));
    EXPECT_EQ(parse_protected_path(".bashrc"), (ProtectedPath{".bashrc", false}));
}

TEST(AProtectedPathWithATrailingSlash, NamesADirectoryAndLosesTheSlash)
{
    EXPECT_EQ(parse_protected_path(".claude/hooks/"), (ProtectedPath{".claude/hooks", true}));
}

TEST(AProtectedPath, IsWrittenBackInTheConfigsForm)
{
    EXPECT_EQ(protected_path_text(parse_protected_path(".claude/hooks/")), ".claude/hooks/");
    EXPECT_EQ(protected_path_text(parse_protected_path(".codex/config.toml")), ".codex/config.toml");
}

TEST(AProtectedPathThatCouldLeaveOrNameTheHome, IsRefused)
{
    for (const auto* entry : {"", "/", "./", ".", "..", "../.bashrc", ".claude/../.bashrc", "a/./b", "/etc/passwd",
                              "/.bashrc", "a//b", "a//", "//", ".claude/.."}) {
        SCOPED_TRACE(entry);
        NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, parse_protected_path(entry));
        EXPECT_THAT(e->what(), HasSubstr("protected home path"));
    }
}

TEST(AProtectedPathWithAControlCharacter, IsRefusedWithoutEchoingIt)
{
    for (const auto& entry : std::vector<std::string>{std::string(".bash\0rc", 8), ".bashrc\n", "a\nb/"}) {
        NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, parse_protected_path(entry));
        EXPECT_THAT(e->what(), HasSubstr("control character"));
        EXPECT_EQ(std::string(e->what()).find('\n'), std::string::npos);
    }
}

TEST(AProtectedPathAtItsLengthBound, IsAcceptedAndOneByteMoreIsRefused)
{
    std::string longest;
    while (longest.size() + 11 <= kMaxProtectedPathLength) {
        longest += std::string(10, 'a') + "/";
    }
    longest += std::string(kMaxProtectedPathLength - longest.size(), 'b');
    ASSERT_EQ(longest.size(), kMaxProtectedPathLength);
    EXPECT_EQ(parse_protected_path(longest).relative, longest);
    EXPECT_TRUE(parse_protected_path(longest + "/").directory);
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, parse_protected_path(longest + "c"));
    EXPECT_THAT(e->what(), HasSubstr("longer than 1024 bytes"));
}

TEST(AListOfDistinctProtectedPaths, IsAccepted)
{
    EXPECT_NO_THROW(check_protected_paths(list_of({".claude/settings.json", ".claude/hooks/", ".codex/config.toml",
                                                   ".bashrc", ".bashrc.d/", ".config/gh/hosts.yml"})));
    EXPECT_NO_THROW(check_protected_paths({}));
}

TEST(AProtectedPathListedTwice, IsRefusedAlsoWhenTheKindDiffers)
{
    NR_EXPECT_REFUSED(same, ErrorKind::InvalidPath, check_protected_paths(list_of({".bashrc", ".profile", ".bashrc"})));
    EXPECT_THAT(same->what(), HasSubstr(".bashrc is listed twice"));
    NR_EXPECT_REFUSED(kinds, ErrorKind::InvalidPath, check_protected_paths(list_of({".claude", ".claude/"})));
}

TEST(AProtectedPathBeneathAnother, IsRefusedInEitherOrder)
{
    NR_EXPECT_REFUSED(below, ErrorKind::InvalidPath,
                      check_protected_paths(list_of({".claude/", ".claude/settings.json"})));
    EXPECT_THAT(below->what(), HasSubstr(".claude/settings.json and .claude/ overlap"));
    NR_EXPECT_REFUSED(above, ErrorKind::InvalidPath, check_protected_paths(list_of({".bashrc/x", ".bashrc"})));
}

TEST(ProtectedPathsThatOnlyShareAPrefix, DoNotOverlap)
{
    EXPECT_NO_THROW(check_protected_paths(list_of({".claude", ".claude.json", ".claude-x/y"})));
}

TEST(AListAtTheCountBound, IsAcceptedAndOneMoreIsRefused)
{
    std::vector<ProtectedPath> paths;
    for (std::size_t i = 0; i < kMaxProtectedPaths; ++i) {
        paths.push_back({"p" + std::to_string(i), false});
    }
    EXPECT_NO_THROW(check_protected_paths(paths));
    paths.push_back({"one-more", false});
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, check_protected_paths(paths));
    EXPECT_THAT(e->what(), HasSubstr("more than 64"));
}

TEST(ProtectedPathsNeedingMoreMountsThanTheBound, AreRefused)
{
    // Each entry 15 directories deep on its own branch: 16 mounts apiece.
    std::vector<ProtectedPath> paths;
    auto deep = [](std::size_t branch) {
        std::string path = "b" + std::to_string(branch);
        for (int depth = 1; depth < 16; ++depth) {
            path += "/d";
        }
        return ProtectedPath{path, false};
    };
    for (std::size_t branch = 0; branch < kMaxProtectedMounts / 16; ++branch) {
        paths.push_back(deep(branch));
    }
    EXPECT_NO_THROW(check_protected_paths(paths));
    paths.push_back({"one-more", false});
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, check_protected_paths(paths));
    EXPECT_THAT(e->what(), HasSubstr("129 mounts, more than 128"));
}

TEST(AListWithANonCanonicalEntry, IsRefusedAsAWhole)
{
    NR_EXPECT_REFUSED(dots, ErrorKind::InvalidPath, check_protected_paths({{".bashrc", false}, {"a/../b", false}}));
    NR_EXPECT_REFUSED(slash, ErrorKind::InvalidPath, check_protected_paths({{".claude/", true}}));
    NR_EXPECT_REFUSED(empty, ErrorKind::InvalidPath, check_protected_paths({{"", true}}));
}

TEST(TheDirectoriesOnTheWay, AreEachListedOnceWithParentsFirst)
{
    EXPECT_THAT(protected_ancestors(list_of({".config/gh/hosts.yml", ".claude/settings.json", ".claude/hooks/",
                                             ".bashrc", ".config-x/y", ".config/a/"})),
                ElementsAre(".claude", ".config", ".config-x", ".config/gh"));
}

TEST(ProtectedPathsDirectlyInTheHome, HaveNoDirectoryOnTheWay)
{
    EXPECT_THAT(protected_ancestors(list_of({".bashrc", ".claude/"})), IsEmpty());
}

TEST(TheOwnersProtectedPaths, AreEveryAdaptersTogetherSortedAndOnce)
{
    const auto merged = merge_protected_paths(
        {list_of({".claude/settings.json", ".bashrc"}), list_of({".codex/config.toml", ".bashrc"})});
    EXPECT_EQ(merged, list_of({".bashrc", ".claude/settings.json", ".codex/config.toml"}));
}

TEST(AnAdaptersPathBeneathAnotherAdaptersProtectedDirectory, IsCoveredByIt)
{
    EXPECT_EQ(merge_protected_paths({list_of({".claude/hooks/run.sh"}), list_of({".claude/hooks/"})}),
              list_of({".claude/hooks/"}));
}

TEST(APathThatIsAFileForOneAdapterAndADirectoryForAnother, IsRefused)
{
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath,
                      merge_protected_paths({list_of({".claude/x"}), list_of({".claude/x/"})}));
    EXPECT_THAT(e->what(), ::testing::HasSubstr(".claude/x is a file for one adapter and a directory for another"));
}

TEST(AFileOfOneAdapterWithAPathBeneathItInAnother, IsRefused)
{
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, merge_protected_paths({list_of({".x"}), list_of({".x/y"})}));
}

TEST(TheOwnersProtectedPathsBeyondTheCountBound, AreRefusedTogether)
{
    std::vector<std::string> first;
    std::vector<std::string> second;
    for (std::size_t i = 0; i < kMaxProtectedPaths; ++i) {
        (i % 2 == 0 ? first : second).push_back(".f" + std::to_string(i));
    }
    EXPECT_EQ(merge_protected_paths({list_of(first), list_of(second)}).size(), kMaxProtectedPaths);
    second.emplace_back(".one-more");
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, merge_protected_paths({list_of(first), list_of(second)}));
}
