// SPDX-License-Identifier: Apache-2.0
#include "core/base/path_policy.h"

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

void expect_path_refused(const std::string& path, const std::string& reason)
{
    const auto e = nr::test::error_from([&] { validate_absolute_path(path, "workspace"); });
    ASSERT_TRUE(e.has_value()) << "accepted: " << path;
    EXPECT_EQ(e->kind(), ErrorKind::InvalidPath) << path;
    EXPECT_THAT(e->what(), HasSubstr("workspace")) << path;
    EXPECT_THAT(e->what(), HasSubstr(reason)) << path;
}

} // namespace

TEST(ACanonicalAbsolutePath, IsAccepted)
{
    EXPECT_NO_THROW(validate_absolute_path("/srv/work", "workspace"));
    EXPECT_NO_THROW(validate_absolute_path("/a", "workspace"));
    EXPECT_NO_THROW(validate_absolute_path("/a/.hidden/b", "workspace"));
    EXPECT_NO_THROW(validate_absolute_path("/a/...", "workspace"));
    EXPECT_NO_THROW(validate_absolute_path("/a/b..c", "workspace"));
    EXPECT_NO_THROW(validate_absolute_path("/srv/\xc3\xbc", "workspace")); // UTF-8 is not a control char
}

TEST(TheRootPath, IsLexicallyValid)
{
    EXPECT_NO_THROW(validate_absolute_path("/", "workspace"));
}

TEST(ARelativePath, IsRejected)
{
    expect_path_refused("srv/work", "absolute");
    expect_path_refused("./srv", "absolute");
    expect_path_refused("", "absolute");
    expect_path_refused("~/x", "absolute");
}

TEST(APathWithATrailingSlash, IsRejected)
{
    expect_path_refused("/srv/work/", "end with '/'");
}

TEST(APathWithDotDotOrDotOrEmptyComponents, IsRejected)
{
    expect_path_refused("/srv/../etc", "canonical");
    expect_path_refused("/..", "canonical");
    expect_path_refused("/srv/..", "canonical");
    expect_path_refused("/srv/./work", "canonical");
    expect_path_refused("/.", "canonical");
    expect_path_refused("//srv", "canonical");
    expect_path_refused("/srv//work", "canonical");
    expect_path_refused("//", "end with '/'");
}

TEST(APathWithControlCharacters, IsRejected)
{
    expect_path_refused("/srv/a\nb", "control character");
    expect_path_refused("/srv/a\tb", "control character");
    expect_path_refused("/srv/a\rb", "control character");
    expect_path_refused("/srv/a\x7f", "control character");
    expect_path_refused("/srv/a\x1b[0m", "control character");
    expect_path_refused(std::string("/srv/a\0b", 8), "control character");
}

TEST(APathOfExactly4096Bytes, IsAccepted)
{
    const std::string path = "/" + std::string(4095, 'a');
    ASSERT_EQ(path.size(), 4096U);
    // A single 4095-byte component is not our business; only the total is.
    EXPECT_NO_THROW(validate_absolute_path(path, "workspace"));
}

TEST(APathLongerThan4096Bytes, IsRejected)
{
    expect_path_refused("/" + std::string(4096, 'a'), "4096");
}

TEST(PathIsWithin, ComparesWholeComponents)
{
    EXPECT_TRUE(path_is_within("/srv/a", "/srv/a"));
    EXPECT_TRUE(path_is_within("/srv/a/b", "/srv/a"));
    EXPECT_TRUE(path_is_within("/srv/a/b/c", "/srv"));
    EXPECT_FALSE(path_is_within("/srv/ab", "/srv/a"));
    EXPECT_FALSE(path_is_within("/srv/a", "/srv/ab"));
    EXPECT_FALSE(path_is_within("/srv", "/srv/a"));
    EXPECT_FALSE(path_is_within("/srv-a", "/srv"));
    EXPECT_FALSE(path_is_within("/other", "/srv"));
}

TEST(PathIsWithin, TreatsRootAsContainingEveryAbsolutePath)
{
    EXPECT_TRUE(path_is_within("/", "/"));
    EXPECT_TRUE(path_is_within("/srv", "/"));
    EXPECT_TRUE(path_is_within("/srv/a/b", "/"));
    EXPECT_FALSE(path_is_within("", "/"));
    EXPECT_FALSE(path_is_within("srv", "/"));
    EXPECT_FALSE(path_is_within("/", "/srv"));
}

TEST(PathsOverlap, WhenEitherContainsTheOther)
{
    EXPECT_TRUE(paths_overlap("/srv/a", "/srv/a/b"));
    EXPECT_TRUE(paths_overlap("/srv/a/b", "/srv/a"));
    EXPECT_TRUE(paths_overlap("/srv/a", "/srv/a"));
    EXPECT_TRUE(paths_overlap("/", "/home"));
    EXPECT_FALSE(paths_overlap("/srv/a", "/srv/ab"));
    EXPECT_FALSE(paths_overlap("/srv/ab", "/srv/a"));
    EXPECT_FALSE(paths_overlap("/srv/a", "/srv/b"));
}

TEST(PathComponents, SplitsAValidatedPath)
{
    EXPECT_THAT(path_components("/a/b/c"), ElementsAre("a", "b", "c"));
    EXPECT_THAT(path_components("/var"), ElementsAre("var"));
    EXPECT_THAT(path_components("/"), IsEmpty());
    EXPECT_THAT(path_components("native-runtime/alice/home"), ElementsAre("native-runtime", "alice", "home"));
}

TEST(JoinPath, InsertsExactlyOneSlash)
{
    EXPECT_EQ(join_path("/var/lib", "native-runtime/alice"), "/var/lib/native-runtime/alice");
    EXPECT_EQ(join_path("/", "srv"), "/srv");
    EXPECT_EQ(join_path("/var/", "lib"), "/var/lib");
    EXPECT_EQ(join_path("", "x"), "/x");
}
