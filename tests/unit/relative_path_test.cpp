// SPDX-License-Identifier: Apache-2.0
#include "core/base/relative_path.h"

#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace nr::core;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

std::vector<std::string> parsed(std::string_view path)
{
    return parse_relative_path(path, "relpath");
}

} // namespace

TEST(ARelativePath, IsSplitIntoItsNames)
{
    EXPECT_THAT(parsed("src/main.c"), ElementsAre("src", "main.c"));
    EXPECT_THAT(parsed("README"), ElementsAre("README"));
}

TEST(ARelativePath, MayUseDotsInsideNames)
{
    EXPECT_THAT(parsed(".config/..x/..."), ElementsAre(".config", "..x", "..."));
}

TEST(ARelativePath, MayHoldUtf8AndSpaces)
{
    EXPECT_THAT(parsed("my docs/\xc3\xbc.txt"), ElementsAre("my docs", "\xc3\xbc.txt"));
}

TEST(ARelativePath, JoinsBackToItsOwnText)
{
    EXPECT_EQ(join_components(parsed("a/b/c")), "a/b/c");
}

TEST(AnEmptyRelativePath, IsRefused)
{
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, parsed(""));
    EXPECT_THAT(e->what(), HasSubstr("relpath is empty"));
}

TEST(AnAbsolutePath, IsRefusedAsARelativePath)
{
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, parsed("/etc/shadow"));
    EXPECT_THAT(e->what(), HasSubstr("must be relative"));
}

TEST(ADotDotComponent, IsRefusedWhereverItAppears)
{
    for (const auto* path : {"..", "../x", "a/../b", "a/.."}) {
        NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, parsed(path));
        EXPECT_THAT(e->what(), HasSubstr("'..'")) << path;
    }
}

TEST(ADotComponent, IsRefusedRatherThanNormalised)
{
    for (const auto* path : {".", "./x", "a/./b", "a/."}) {
        NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, parsed(path));
    }
}

TEST(AnEmptyComponent, IsRefusedWhetherDoubledOrTrailing)
{
    for (const auto* path : {"a//b", "a/", "a/b/"}) {
        NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, parsed(path));
        EXPECT_THAT(e->what(), HasSubstr("empty component")) << path;
    }
}

TEST(ANulByte, IsRefusedSoNoCApiSeesAShorterPath)
{
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, parsed(std::string_view("ok\0/../../etc", 13)));
    EXPECT_THAT(e->what(), HasSubstr("control character"));
}

TEST(AControlCharacter, IsRefused)
{
    for (const auto* path : {"a\nb", "a\rb", "\x1b[1m", "x\x7f"}) {
        NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, parsed(path));
    }
}

TEST(AComponentOfTwoHundredFiftyFiveBytes, IsAcceptedAndOneMoreIsRefused)
{
    EXPECT_THAT(parsed(std::string(255, 'n')), ElementsAre(std::string(255, 'n')));
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, parsed(std::string(256, 'n')));
    EXPECT_THAT(e->what(), HasSubstr("255"));
}

TEST(ARelativePathOf4095Bytes, IsAcceptedAndOneMoreIsRefused)
{
    std::string path;
    while (path.size() < 4095) {
        path += path.empty() ? "d" : "/d";
    }
    path.resize(4095);
    if (path.back() == '/') {
        path.back() = 'd';
    }
    EXPECT_NO_THROW(parsed(path));
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, parsed(path + "d"));
}

TEST(ARefusal, NamesTheField)
{
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, parse_relative_path("../x", "upload path"));
    EXPECT_THAT(e->what(), HasSubstr("upload path"));
}
