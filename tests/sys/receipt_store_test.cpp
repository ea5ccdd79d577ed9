// SPDX-License-Identifier: Apache-2.0
// Receipts are authenticated with a root-only key and stored with their
// pre-edit snapshot in a 2770 directory; forged, edited or swapped pieces
// are refused.

#include "sys/crypto/receipt_store.h"

#include "sys/crypto/digest.h"
#include "temp_tree.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

using namespace nr;
using core::ErrorKind;
using ::testing::HasSubstr;

namespace {

constexpr gid_t kGroup = 65534;

constexpr const char* kKey = "k0123456789abcdef0123456789abcdef";

core::EditReceipt a_handle(const std::string& before, std::int64_t now = 1)
{
    return core::make_handle("00112233445566778899aabbccddeeff", "alice", "c1", "j1", "src/a.txt",
                             core::ObservedFile{true, 1, 7, sys::sha256_hex(before)}, 0644, now, 3600);
}

core::EditReceipt a_receipt(const std::string& before, std::int64_t now = 1)
{
    return core::make_receipt(a_handle(before, now), core::ObservedFile{true, 1, 2, sys::sha256_hex("after")}, now,
                              3600);
}

struct stat stat_path(const std::string& path)
{
    struct stat st {};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
    return st;
}

} // namespace

TEST(Sha256, MatchesTheFipsExample)
{
    EXPECT_EQ(sys::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(HmacSha256, MatchesRfc4231TestCase2)
{
    EXPECT_EQ(sys::hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
              "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(ASignedReceipt, VerifiesWithItsKey)
{
    const auto text = sys::sign_receipt(a_receipt("before"), kKey);
    EXPECT_EQ(sys::verify_receipt(text, kKey, core::ReceiptKind::Receipt).owner, "alice");
}

TEST(AnEditedReceipt, IsRefusedAsInvalid)
{
    auto text = sys::sign_receipt(a_receipt("before"), kKey);
    text.replace(text.find("owner=alice"), 11, "owner=bobby");
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, sys::verify_receipt(text, kKey, core::ReceiptKind::Receipt));
    EXPECT_THAT(e->what(), HasSubstr("forged or edited"));
}

TEST(AReceiptWithAnExtendedExpiry, IsRefusedAsInvalid)
{
    auto text = sys::sign_receipt(a_receipt("before"), kKey);
    text.replace(text.find("expires=3601"), 12, "expires=9999");
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, sys::verify_receipt(text, kKey, core::ReceiptKind::Receipt));
}

TEST(AReceiptSignedWithAnotherKey, IsRefusedAsInvalid)
{
    const auto text = sys::sign_receipt(a_receipt("before"), "some-other-key-0123456789abcdef01");
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, sys::verify_receipt(text, kKey, core::ReceiptKind::Receipt));
}

TEST(ASignedHandle, IsNotAcceptedAsAReceipt)
{
    const auto text = sys::sign_receipt(a_handle("before"), kKey);
    EXPECT_EQ(sys::verify_receipt(text, kKey, core::ReceiptKind::Handle).path, "src/a.txt");
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, sys::verify_receipt(text, kKey, core::ReceiptKind::Receipt));
}

class ASnapshotDir : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!test::running_as_root()) {
            GTEST_SKIP() << "provisioning sets owner and group";
        }
        ::chmod(tree.path().c_str(), 0755);
    }
    test::TempTree tree;
};

TEST_F(ASnapshotDir, IsProvisionedRootOwnedWithTheGroupAndMode2770)
{
    sys::provision_snapshot_dir(tree.at("snapshots"), kGroup);
    const auto st = stat_path(tree.at("snapshots"));
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 02770U);
    EXPECT_EQ(st.st_uid, 0U);
    EXPECT_EQ(st.st_gid, kGroup);
}

TEST_F(ASnapshotDir, ThatExistsWithATighterModeIsBroughtTo2770)
{
    tree.dir("snapshots", 0700);
    sys::provision_snapshot_dir(tree.at("snapshots"), kGroup);
    EXPECT_EQ(stat_path(tree.at("snapshots")).st_mode & 07777, 02770U);
}

TEST_F(ASnapshotDir, ThatExistsWithALooserModeIsRefusedAndLeftAlone)
{
    for (const mode_t loose : {0777U, 02775U, 03770U, 0771U}) {
        tree.dir("loose", 0700);
        ::chmod(tree.at("loose").c_str(), loose);
        NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, sys::provision_snapshot_dir(tree.at("loose"), kGroup));
        EXPECT_EQ(stat_path(tree.at("loose")).st_mode & 07777, loose);
        ::rmdir(tree.at("loose").c_str());
    }
}

TEST_F(ASnapshotDir, ThatExistsOwnedByAnotherUserIsRefusedAndLeftAlone)
{
    // What `--owner GATEWAY_USER` used to make: the helper (root without
    // CAP_DAC_OVERRIDE, not in the group) could not write there.
    tree.dir("gateway", 0700);
    ASSERT_EQ(::chown(tree.at("gateway").c_str(), 65534, kGroup), 0);
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, sys::provision_snapshot_dir(tree.at("gateway"), kGroup));
    EXPECT_THAT(e->what(), HasSubstr("not root"));
    EXPECT_EQ(stat_path(tree.at("gateway")).st_uid, 65534U);
    NR_EXPECT_REFUSED(used, ErrorKind::ConfigInvalid, sys::SnapshotDir(tree.at("gateway")));
    EXPECT_THAT(used->what(), HasSubstr("cannot write"));
}

TEST_F(ASnapshotDir, ThatIsASymlinkIsRefused)
{
    tree.dir("real", 0700);
    tree.symlink("snapshots", tree.at("real"));
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, sys::provision_snapshot_dir(tree.at("snapshots"), kGroup));
}

TEST_F(ASnapshotDir, StoresReceiptAndSnapshotWithMode0640AndGivesTheSnapshotBack)
{
    sys::provision_snapshot_dir(tree.at("snapshots"), kGroup);
    sys::SnapshotDir dir(tree.at("snapshots"));
    const auto receipt = a_receipt("before-content");
    dir.store_snapshot(receipt.id, "before-content");
    const auto text = dir.store_receipt(receipt, kKey);
    const auto receipt_st = stat_path(tree.at("snapshots/" + core::receipt_file_name(receipt.id)));
    EXPECT_EQ(receipt_st.st_mode & 07777, 0640U);
    EXPECT_EQ(receipt_st.st_gid, kGroup); // inherited through the setgid bit
    EXPECT_EQ(stat_path(tree.at("snapshots/" + core::snapshot_file_name(receipt.id))).st_mode & 07777, 0640U);
    EXPECT_EQ(tree.read("snapshots/" + core::receipt_file_name(receipt.id)), text);
    EXPECT_EQ(dir.snapshot_of(receipt, 1024), "before-content");
}

TEST_F(ASnapshotDir, RefusesASnapshotEditedAfterItWasRecorded)
{
    sys::provision_snapshot_dir(tree.at("snapshots"), kGroup);
    sys::SnapshotDir dir(tree.at("snapshots"));
    const auto receipt = a_receipt("before-content");
    dir.store_snapshot(receipt.id, "before-content");
    tree.file("snapshots/" + core::snapshot_file_name(receipt.id), "tampered", 0640);
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, dir.snapshot_of(receipt, 1024));
}

TEST_F(ASnapshotDir, RefusesASnapshotReplacedByASymlink)
{
    sys::provision_snapshot_dir(tree.at("snapshots"), kGroup);
    sys::SnapshotDir dir(tree.at("snapshots"));
    const auto receipt = a_receipt("before-content");
    tree.file("elsewhere", "before-content");
    tree.symlink("snapshots/" + core::snapshot_file_name(receipt.id), tree.at("elsewhere"));
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, dir.snapshot_of(receipt, 1024));
}

TEST_F(ASnapshotDir, GivesAnEmptySnapshotForAnAbsentBeforeState)
{
    sys::provision_snapshot_dir(tree.at("snapshots"), kGroup);
    sys::SnapshotDir dir(tree.at("snapshots"));
    const auto handle = core::make_handle("00112233445566778899aabbccddeeff", "alice", "c1", "j1", "new.txt",
                                          core::ObservedFile{}, 0, 1, 3600);
    const auto receipt = core::make_receipt(handle, core::ObservedFile{true, 1, 2, sys::sha256_hex("x")}, 1, 3600);
    EXPECT_EQ(dir.snapshot_of(receipt, 1024), "");
}

TEST_F(ASnapshotDir, ThatOthersCanEnterIsNotUsed)
{
    tree.dir("open", 0775);
    NR_EXPECT_REFUSED(e, ErrorKind::ConfigInvalid, sys::SnapshotDir(tree.at("open")));
}

TEST_F(ASnapshotDir, KeyIsCreatedRootOnlyOnceAndThenReused)
{
    tree.dir("keys", 0700);
    const auto key = sys::load_or_create_receipt_key(tree.at("keys/receipt.key"));
    EXPECT_EQ(key.size(), 32U);
    EXPECT_EQ(stat_path(tree.at("keys/receipt.key")).st_mode & 07777, 0600U);
    EXPECT_EQ(sys::load_or_create_receipt_key(tree.at("keys/receipt.key")), key);
}

TEST_F(ASnapshotDir, KeyReadableByItsGroupIsRefused)
{
    tree.dir("keys", 0700);
    tree.file("keys/receipt.key", std::string(32, 'k'), 0640);
    NR_EXPECT_REFUSED(e, ErrorKind::ConfigInvalid, sys::load_or_create_receipt_key(tree.at("keys/receipt.key")));
}

class UsedReceiptMarks : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!test::running_as_root()) {
            GTEST_SKIP() << "the marks directory must be root-owned";
        }
        ::chmod(tree.path().c_str(), 0755);
        tree.dir("state", 0700);
    }
    test::TempTree tree;
};

TEST_F(UsedReceiptMarks, AreCreatedRootOnlyAndRefuseASecondUse)
{
    sys::UsedReceipts used(tree.at("state/used-receipts"));
    EXPECT_EQ(stat_path(tree.at("state/used-receipts")).st_mode & 07777, 0700U);
    const auto receipt = a_receipt("before");
    EXPECT_FALSE(used.used(receipt));
    used.claim(receipt);
    EXPECT_TRUE(used.used(receipt));
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptUsed, used.claim(receipt));
    // A handle with the same id is another use.
    EXPECT_FALSE(used.used(a_handle("before")));
}

TEST_F(UsedReceiptMarks, SurviveReopeningTheDirectory)
{
    const auto receipt = a_receipt("before");
    sys::UsedReceipts(tree.at("state/used-receipts")).claim(receipt);
    sys::UsedReceipts again(tree.at("state/used-receipts"));
    EXPECT_TRUE(again.used(receipt));
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptUsed, again.claim(receipt));
}

TEST_F(UsedReceiptMarks, CanBeTakenBackAfterAFailedUse)
{
    sys::UsedReceipts used(tree.at("state/used-receipts"));
    const auto receipt = a_receipt("before");
    used.claim(receipt);
    used.release(receipt);
    EXPECT_FALSE(used.used(receipt));
}

TEST_F(UsedReceiptMarks, ArePrunedOnlyOnceTheirReceiptExpired)
{
    sys::UsedReceipts used(tree.at("state/used-receipts"));
    const auto receipt = a_receipt("before");
    used.claim(receipt);
    tree.file("state/used-receipts/unrelated", "", 0600);
    EXPECT_EQ(used.prune(receipt.expires - 1), 0U);
    EXPECT_TRUE(used.used(receipt));
    EXPECT_EQ(used.prune(receipt.expires), 1U);
    EXPECT_FALSE(used.used(receipt));
    EXPECT_EQ(tree.read("state/used-receipts/unrelated"), "");
}

TEST_F(UsedReceiptMarks, InADirectoryOthersCanEnterAreNotUsed)
{
    tree.dir("state/used-receipts", 0755);
    NR_EXPECT_REFUSED(e, ErrorKind::ConfigInvalid, sys::UsedReceipts(tree.at("state/used-receipts")));
}

TEST_F(UsedReceiptMarks, InADirectoryReachedThroughASymlinkAreNotUsed)
{
    tree.dir("real", 0700);
    tree.symlink("state/used-receipts", tree.at("real"));
    NR_EXPECT_REFUSED(e, ErrorKind::ConfigInvalid, sys::UsedReceipts(tree.at("state/used-receipts")));
}
