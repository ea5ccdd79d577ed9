// Receipts are authenticated with a root-only key and stored with their
// pre-edit snapshot in a 2770 directory; forged, edited or swapped pieces
// are refused.

#include "sys/receipt_store.h"

#include "sys/digest.h"
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

core::EditReceipt a_receipt(const std::string& before)
{
    core::EditReceipt r;
    r.id = "00112233445566778899aabbccddeeff";
    r.owner = "alice";
    r.chat = "c1";
    r.job = "j1";
    r.path = "src/a.txt";
    r.device = 1;
    r.inode = 2;
    r.before_sha256 = sys::sha256_hex(before);
    r.after_sha256 = sys::sha256_hex("after");
    r.time = 1;
    return r;
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
    const auto text = sys::sign_receipt(a_receipt("before"), "k0123456789abcdef0123456789abcdef");
    EXPECT_EQ(sys::verify_receipt(text, "k0123456789abcdef0123456789abcdef").owner, "alice");
}

TEST(AnEditedReceipt, IsRefusedAsInvalid)
{
    auto text = sys::sign_receipt(a_receipt("before"), "k0123456789abcdef0123456789abcdef");
    text.replace(text.find("owner=alice"), 11, "owner=bobby");
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, sys::verify_receipt(text, "k0123456789abcdef0123456789abcdef"));
    EXPECT_THAT(e->what(), HasSubstr("forged or edited"));
}

TEST(AReceiptSignedWithAnotherKey, IsRefusedAsInvalid)
{
    const auto text = sys::sign_receipt(a_receipt("before"), "some-other-key-0123456789abcdef01");
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, sys::verify_receipt(text, "k0123456789abcdef0123456789abcdef"));
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
    sys::provision_snapshot_dir(tree.at("snapshots"), 0, kGroup);
    const auto st = stat_path(tree.at("snapshots"));
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 02770U);
    EXPECT_EQ(st.st_uid, 0U);
    EXPECT_EQ(st.st_gid, kGroup);
}

TEST_F(ASnapshotDir, ThatExistsWithATighterModeIsBroughtTo2770)
{
    tree.dir("snapshots", 0700);
    sys::provision_snapshot_dir(tree.at("snapshots"), 0, kGroup);
    EXPECT_EQ(stat_path(tree.at("snapshots")).st_mode & 07777, 02770U);
}

TEST_F(ASnapshotDir, ThatExistsWithALooserModeIsRefusedAndLeftAlone)
{
    for (const mode_t loose : {0777U, 02775U, 03770U, 0771U}) {
        tree.dir("loose", 0700);
        ::chmod(tree.at("loose").c_str(), loose);
        NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, sys::provision_snapshot_dir(tree.at("loose"), 0, kGroup));
        EXPECT_EQ(stat_path(tree.at("loose")).st_mode & 07777, loose);
        ::rmdir(tree.at("loose").c_str());
    }
}

TEST_F(ASnapshotDir, ThatIsASymlinkIsRefused)
{
    tree.dir("real", 0700);
    tree.symlink("snapshots", tree.at("real"));
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, sys::provision_snapshot_dir(tree.at("snapshots"), 0, kGroup));
}

TEST_F(ASnapshotDir, StoresReceiptAndSnapshotWithMode0640AndGivesTheSnapshotBack)
{
    sys::provision_snapshot_dir(tree.at("snapshots"), 0, kGroup);
    sys::SnapshotDir dir(tree.at("snapshots"));
    const auto receipt = a_receipt("before-content");
    const auto text = dir.store(receipt, "before-content", "k0123456789abcdef0123456789abcdef");
    const auto receipt_st = stat_path(tree.at("snapshots/" + core::receipt_file_name(receipt.id)));
    EXPECT_EQ(receipt_st.st_mode & 07777, 0640U);
    EXPECT_EQ(receipt_st.st_gid, kGroup); // inherited through the setgid bit
    EXPECT_EQ(stat_path(tree.at("snapshots/" + core::snapshot_file_name(receipt.id))).st_mode & 07777, 0640U);
    EXPECT_EQ(tree.read("snapshots/" + core::receipt_file_name(receipt.id)), text);
    EXPECT_EQ(dir.snapshot_of(receipt, 1024), "before-content");
}

TEST_F(ASnapshotDir, RefusesASnapshotEditedAfterItWasRecorded)
{
    sys::provision_snapshot_dir(tree.at("snapshots"), 0, kGroup);
    sys::SnapshotDir dir(tree.at("snapshots"));
    const auto receipt = a_receipt("before-content");
    dir.store(receipt, "before-content", "k0123456789abcdef0123456789abcdef");
    tree.file("snapshots/" + core::snapshot_file_name(receipt.id), "tampered", 0640);
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, dir.snapshot_of(receipt, 1024));
}

TEST_F(ASnapshotDir, RefusesASnapshotReplacedByASymlink)
{
    sys::provision_snapshot_dir(tree.at("snapshots"), 0, kGroup);
    sys::SnapshotDir dir(tree.at("snapshots"));
    const auto receipt = a_receipt("before-content");
    tree.file("elsewhere", "before-content");
    tree.symlink("snapshots/" + core::snapshot_file_name(receipt.id), tree.at("elsewhere"));
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, dir.snapshot_of(receipt, 1024));
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
