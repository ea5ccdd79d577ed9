// SPDX-License-Identifier: Apache-2.0
// The helper trusts a cached canary pass only from a root-owned file in a
// root-owned directory nobody else may write; anything else reads as "no
// pass", so the canary runs again.

#include "sys/preflight/canary_cache.h"

#include "temp_tree.h"

#include <gtest/gtest.h>

#include <unistd.h>

using namespace nr;

namespace {

class ACanaryCache : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!test::running_as_root()) {
            GTEST_SKIP() << "the cache is trusted only when root owns it";
        }
        tree_.dir("state", 0700);
    }
    [[nodiscard]] std::string dir() const { return tree_.at("state"); }
    test::TempTree tree_;
};

} // namespace

TEST_F(ACanaryCache, ReadsBackWhatWasWritten)
{
    EXPECT_EQ(sys::read_canary_cache(dir()), "");
    ASSERT_TRUE(sys::write_canary_cache("record\n", dir()));
    EXPECT_EQ(sys::read_canary_cache(dir()), "record\n");
    struct stat st {};
    ASSERT_EQ(::stat((dir() + "/" + sys::kCanaryCacheName).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777U, 0600U);
    sys::remove_canary_cache(dir());
    EXPECT_EQ(sys::read_canary_cache(dir()), "");
}

TEST_F(ACanaryCache, IsIgnoredWhenSomeoneElseOwnsTheFile)
{
    ASSERT_TRUE(sys::write_canary_cache("record\n", dir()));
    ASSERT_EQ(::chown((dir() + "/" + sys::kCanaryCacheName).c_str(), 65534, 65534), 0);
    EXPECT_EQ(sys::read_canary_cache(dir()), "");
}

TEST_F(ACanaryCache, IsIgnoredWhenTheFileOrItsDirectoryIsWritableByOthers)
{
    ASSERT_TRUE(sys::write_canary_cache("record\n", dir()));
    ASSERT_EQ(::chmod((dir() + "/" + sys::kCanaryCacheName).c_str(), 0666), 0);
    EXPECT_EQ(sys::read_canary_cache(dir()), "");
    ASSERT_EQ(::chmod((dir() + "/" + sys::kCanaryCacheName).c_str(), 0600), 0);
    EXPECT_EQ(sys::read_canary_cache(dir()), "record\n") << "positive control";
    ASSERT_EQ(::chmod(dir().c_str(), 0777), 0);
    EXPECT_EQ(sys::read_canary_cache(dir()), "");
    EXPECT_FALSE(sys::write_canary_cache("other\n", dir()));
}

TEST_F(ACanaryCache, IsIgnoredThroughASymlink)
{
    tree_.file("elsewhere", "record\n", 0600);
    tree_.symlink(std::string("state/") + sys::kCanaryCacheName, tree_.at("elsewhere"));
    EXPECT_EQ(sys::read_canary_cache(dir()), "");
    tree_.symlink("linked-state", dir());
    ASSERT_TRUE(sys::write_canary_cache("record\n", dir()));
    EXPECT_EQ(sys::read_canary_cache(tree_.at("linked-state")), "");
}
