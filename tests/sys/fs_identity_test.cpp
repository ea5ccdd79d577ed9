// SPDX-License-Identifier: Apache-2.0
// The helper is root; a file it fetches for a worker must be one the
// worker could open itself. These tests take the identity of `nobody`.

#include "sys/fs/fs_identity.h"

#include "sys/fs/safe_files.h"
#include "temp_tree.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <sys/fsuid.h>
#include <unistd.h>

using namespace nr;
using core::ErrorKind;

namespace {

using nr::test::kNobody;

class UnderTheWorkersIdentity : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!test::running_as_root()) {
            GTEST_SKIP() << "taking another user's identity needs root";
        }
        tree.dir("root", 0755);
        tree.file("root/private.txt", "root-only", 0600);
        tree.file("root/public.txt", "for-everyone", 0644);
        tree.dir("root/mine", 0755);
        ASSERT_EQ(::chown(tree.at("root/mine").c_str(), kNobody, kNobody), 0);
    }

    std::string read_as(const std::optional<sys::FsCredentials>& who, const std::string& name)
    {
        const auto root = tree.open_root("root");
        if (!who) {
            return sys::read_file_beneath(root.get(), {name}, 1024).data;
        }
        const sys::ScopedFsIdentity identity(*who);
        return sys::read_file_beneath(root.get(), {name}, 1024).data;
    }

    test::TempTree tree;
};

} // namespace

TEST_F(UnderTheWorkersIdentity, AFileTheWorkerCannotReadIsRefusedThoughRootCould)
{
    EXPECT_EQ(read_as(std::nullopt, "private.txt"), "root-only"); // control: the helper itself could
    NR_EXPECT_REFUSED(e, ErrorKind::AccessDenied, read_as(sys::credentials_of(kNobody), "private.txt"));
}

TEST_F(UnderTheWorkersIdentity, AFileTheWorkerCanReadIsReturned)
{
    EXPECT_EQ(read_as(sys::credentials_of(kNobody), "public.txt"), "for-everyone");
}

TEST_F(UnderTheWorkersIdentity, AWrittenFileBelongsToTheWorker)
{
    const auto root = tree.open_root("root");
    {
        const sys::ScopedFsIdentity identity(sys::credentials_of(kNobody));
        const auto st = sys::replace_file_beneath(root.get(), {"mine", "new.txt"}, "data", 0600);
        EXPECT_EQ(st.st_uid, kNobody);
    }
    // Control for the refusal below: root could write there.
    EXPECT_NO_THROW(sys::replace_file_beneath(root.get(), {"by-root.txt"}, "x", 0600));
    const sys::ScopedFsIdentity identity(sys::credentials_of(kNobody));
    NR_EXPECT_REFUSED(e, ErrorKind::AccessDenied, sys::replace_file_beneath(root.get(), {"denied.txt"}, "x", 0600));
}

TEST_F(UnderTheWorkersIdentity, EndsWithTheHelpersOwnIdentityRestored)
{
    {
        const sys::ScopedFsIdentity identity(sys::credentials_of(kNobody));
        EXPECT_EQ(static_cast<uid_t>(setfsuid(static_cast<uid_t>(-1))), kNobody);
    }
    EXPECT_EQ(static_cast<uid_t>(setfsuid(static_cast<uid_t>(-1))), 0U);
    EXPECT_EQ(read_as(std::nullopt, "private.txt"), "root-only");
}

TEST(AnUnknownUid, HasNoCredentials)
{
    NR_EXPECT_REFUSED(e, ErrorKind::AccessDenied, sys::credentials_of(4000000000U));
}
