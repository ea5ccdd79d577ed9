// SPDX-License-Identifier: Apache-2.0
#include "core/files/edit_receipt.h"

#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

using namespace nr::core;
using ::testing::HasSubstr;

namespace {

const std::string kMac(64, 'a');
const std::string kId = "0123456789abcdef0123456789abcdef";
constexpr std::int64_t kNow = 1764670000;
constexpr std::uint64_t kTtl = 3600;

ObservedFile a_file(char hash, std::uint64_t inode = 1234567)
{
    return ObservedFile{true, 2049, inode, std::string(64, hash)};
}

EditReceipt a_handle()
{
    return make_handle(kId, "alice", "chat-1", "job-7", "src/main.c", a_file('1', 1111), 0644, kNow, kTtl);
}

EditReceipt a_receipt()
{
    return make_receipt(a_handle(), a_file('2'), kNow + 5, kTtl);
}

using nr::test::replaced;

} // namespace

TEST(AReceipt, ParsesBackToTheSameFields)
{
    const auto text = receipt_text(a_receipt(), kMac);
    const auto signed_receipt = split_receipt(text);
    EXPECT_EQ(signed_receipt.mac, kMac);
    const auto back = parse_receipt_body(signed_receipt.body, ReceiptKind::Receipt);
    EXPECT_EQ(back.kind, ReceiptKind::Receipt);
    EXPECT_EQ(back.id, kId);
    EXPECT_EQ(back.owner, "alice");
    EXPECT_EQ(back.chat, "chat-1");
    EXPECT_EQ(back.job, "job-7");
    EXPECT_EQ(back.path, "src/main.c");
    EXPECT_EQ(back.before_sha256, std::string(64, '1'));
    EXPECT_EQ(back.before_mode, 0644U);
    EXPECT_EQ(back.after_sha256, std::string(64, '2'));
    EXPECT_EQ(back.device, 2049U);
    EXPECT_EQ(back.inode, 1234567U);
    EXPECT_EQ(back.time, kNow + 5);
    EXPECT_EQ(back.expires, kNow + 5 + 3600);
}

TEST(AnEditHandle, ParsesBackAndHasNoStateAfter)
{
    const auto back = parse_receipt_body(receipt_body(a_handle()), ReceiptKind::Handle);
    EXPECT_EQ(back.kind, ReceiptKind::Handle);
    EXPECT_EQ(back.before_sha256, std::string(64, '1'));
    EXPECT_EQ(back.before_mode, 0644U);
    EXPECT_EQ(back.after_sha256, "");
    EXPECT_EQ(back.inode, 0U);
    EXPECT_EQ(back.expires, kNow + 3600);
    EXPECT_THAT(receipt_body(a_handle()), HasSubstr("native-runtime-edit-handle 1\n"));
}

TEST(AnEditHandle, IsNotAcceptedAsAReceiptNorTheReverse)
{
    NR_EXPECT_REFUSED(h, ErrorKind::ReceiptInvalid, parse_receipt_body(receipt_body(a_handle()), ReceiptKind::Receipt));
    EXPECT_THAT(h->what(), HasSubstr("handle"));
    NR_EXPECT_REFUSED(r, ErrorKind::ReceiptInvalid, parse_receipt_body(receipt_body(a_receipt()), ReceiptKind::Handle));
}

TEST(AReceiptsMac, CoversEveryLineButItself)
{
    const auto text = receipt_text(a_receipt(), kMac);
    EXPECT_EQ(split_receipt(text).body, receipt_body(a_receipt()));
    EXPECT_EQ(text, receipt_body(a_receipt()) + "mac=" + kMac + "\n");
}

TEST(AReceiptWithoutAJob, CannotBeMade)
{
    auto r = a_receipt();
    r.job.clear();
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidArgument, receipt_body(r));
}

TEST(AReceiptForAPathWithDotDot, CannotBeMade)
{
    auto r = a_receipt();
    r.path = "../etc/shadow";
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, receipt_body(r));
}

TEST(AReceiptWithAnExtraLine, IsInvalid)
{
    const auto body = receipt_body(a_receipt());
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, parse_receipt_body(body + "owner=bob\n", ReceiptKind::Receipt));
}

TEST(AReceiptWithReorderedLines, IsInvalid)
{
    const auto body = replaced(receipt_body(a_receipt()), "owner=alice\nchat=chat-1\n", "chat=chat-1\nowner=alice\n");
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, parse_receipt_body(body, ReceiptKind::Receipt));
}

TEST(AReceiptWithANonCanonicalNumber, IsInvalid)
{
    for (const auto* inode : {"inode=01234567", "inode=+1234567", "inode=-1", "inode=1234567x", "inode="}) {
        const auto body = replaced(receipt_body(a_receipt()), "inode=1234567", inode);
        NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, parse_receipt_body(body, ReceiptKind::Receipt));
    }
}

TEST(AReceiptWithAMalformedMode, IsInvalid)
{
    for (const auto* mode : {"mode=644", "mode=0648", "mode=1644", "mode=00644", "mode=absent"}) {
        const auto body = replaced(receipt_body(a_receipt()), "mode=0644", mode);
        NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, parse_receipt_body(body, ReceiptKind::Receipt));
    }
}

TEST(AReceiptWithAHostileOwner, IsInvalid)
{
    const auto body = replaced(receipt_body(a_receipt()), "owner=alice", "owner=../bob");
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, parse_receipt_body(body, ReceiptKind::Receipt));
}

TEST(AReceiptOfAnotherVersion, IsInvalid)
{
    const auto body = replaced(receipt_body(a_receipt()), "native-runtime-receipt 2", "native-runtime-receipt 1");
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, parse_receipt_body(body, ReceiptKind::Receipt));
}

TEST(AReceiptThatExpiresBeforeItWasMade, IsInvalid)
{
    const auto r = a_receipt();
    const auto body =
        replaced(receipt_body(r), "expires=" + std::to_string(r.expires), "expires=" + std::to_string(r.time));
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, parse_receipt_body(body, ReceiptKind::Receipt));
}

TEST(AReceiptWithoutItsMacLine, IsInvalid)
{
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, split_receipt(receipt_body(a_receipt())));
    NR_EXPECT_REFUSED(f, ErrorKind::ReceiptInvalid, split_receipt(""));
    NR_EXPECT_REFUSED(g, ErrorKind::ReceiptInvalid,
                      split_receipt(receipt_body(a_receipt()) + "mac=" + std::string(64, 'A') + "\n"));
}

TEST(AReceipt, IsBoundToItsOwnerChatAndJob)
{
    EXPECT_NO_THROW(check_receipt_binding(a_receipt(), "alice", "chat-1", "job-7"));
    NR_EXPECT_REFUSED(owner, ErrorKind::ReceiptMismatch, check_receipt_binding(a_receipt(), "bob", "chat-1", "job-7"));
    EXPECT_THAT(owner->what(), HasSubstr("owner"));
    NR_EXPECT_REFUSED(chat, ErrorKind::ReceiptMismatch, check_receipt_binding(a_receipt(), "alice", "chat-2", "job-7"));
    EXPECT_THAT(chat->what(), HasSubstr("chat"));
    NR_EXPECT_REFUSED(job, ErrorKind::ReceiptMismatch, check_receipt_binding(a_receipt(), "alice", "chat-1", "job-8"));
    EXPECT_THAT(job->what(), HasSubstr("job"));
}

TEST(AReceipt, ExpiresAfterItsLifetime)
{
    const auto r = a_receipt();
    EXPECT_NO_THROW(check_receipt_fresh(r, r.time));
    EXPECT_NO_THROW(check_receipt_fresh(r, r.expires - 1));
    NR_EXPECT_REFUSED(at, ErrorKind::ReceiptExpired, check_receipt_fresh(r, r.expires));
    NR_EXPECT_REFUSED(later, ErrorKind::ReceiptExpired, check_receipt_fresh(r, r.expires + 86400));
    EXPECT_THAT(later->what(), HasSubstr("files.receipt_ttl_sec"));
}

TEST(AReceiptMadeInTheFuture, IsRefusedAsExpired)
{
    const auto r = a_receipt();
    EXPECT_NO_THROW(check_receipt_fresh(r, r.time - 60));
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptExpired, check_receipt_fresh(r, r.time - 61));
}

TEST(AReceiptLifetime, IsOneSecondToAYear)
{
    NR_EXPECT_REFUSED(zero, ErrorKind::InvalidArgument,
                      make_handle(kId, "alice", "chat-1", "job-7", "a", a_file('1'), 0644, kNow, 0));
    NR_EXPECT_REFUSED(long_, ErrorKind::InvalidArgument,
                      make_handle(kId, "alice", "chat-1", "job-7", "a", a_file('1'), 0644, kNow, 366ULL * 86400));
    EXPECT_EQ(make_handle(kId, "alice", "chat-1", "job-7", "a", a_file('1'), 0644, kNow, 1).expires, kNow + 1);
}

TEST(AReceipt, IsCurrentOnlyWhileTheFileIsTheEditedOne)
{
    const auto r = a_receipt();
    EXPECT_NO_THROW(check_receipt_current(r, a_file('2')));
    NR_EXPECT_REFUSED(later, ErrorKind::ReceiptStale, check_receipt_current(r, a_file('3')));
    NR_EXPECT_REFUSED(swapped, ErrorKind::ReceiptStale, check_receipt_current(r, a_file('2', 7654321)));
    auto moved = a_file('2');
    moved.device = 2050;
    NR_EXPECT_REFUSED(other_dev, ErrorKind::ReceiptStale, check_receipt_current(r, moved));
    NR_EXPECT_REFUSED(gone, ErrorKind::ReceiptStale, check_receipt_current(r, ObservedFile{}));
}

TEST(ACreation, IsRecordedWithAnAbsentBeforeAndRevertedByRemovingTheFile)
{
    const auto handle = make_handle(kId, "alice", "chat-1", "job-7", "new.txt", ObservedFile{}, 0644, kNow, kTtl);
    EXPECT_EQ(handle.before_sha256, "absent");
    EXPECT_EQ(handle.before_mode, 0U);
    const auto r = make_receipt(handle, a_file('2'), kNow, kTtl);
    EXPECT_THAT(receipt_body(r), HasSubstr("before=absent\nmode=0000\n"));
    EXPECT_EQ(parse_receipt_body(receipt_body(r), ReceiptKind::Receipt).before_sha256, "absent");
    EXPECT_EQ(revert_action(r), RevertAction::RemoveFile);
    EXPECT_EQ(revert_action(a_receipt()), RevertAction::WriteBefore);
}

TEST(ADeletion, IsRecordedWithAnAbsentAfterAndIsCurrentOnlyWhileTheFileIsAbsent)
{
    const auto r = make_receipt(a_handle(), ObservedFile{}, kNow, kTtl);
    EXPECT_THAT(receipt_body(r), HasSubstr("after=absent\ndevice=0\ninode=0\n"));
    EXPECT_EQ(revert_action(r), RevertAction::WriteBefore);
    EXPECT_NO_THROW(check_receipt_current(r, ObservedFile{}));
    NR_EXPECT_REFUSED(back, ErrorKind::ReceiptStale, check_receipt_current(r, a_file('2')));
}

TEST(AnEditOfAFileThatNeverExisted, IsNotRecorded)
{
    const auto handle = make_handle(kId, "alice", "chat-1", "job-7", "new.txt", ObservedFile{}, 0, kNow, kTtl);
    NR_EXPECT_REFUSED(e, ErrorKind::NoSuchFile, make_receipt(handle, ObservedFile{}, kNow, kTtl));
}

TEST(AReceipt, CannotBeMadeFromAReceipt)
{
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, make_receipt(a_receipt(), a_file('3'), kNow, kTtl));
}

TEST(AnAbsentStateWithAnInode, IsInvalid)
{
    const auto r = make_receipt(a_handle(), ObservedFile{}, kNow, kTtl);
    const auto body = replaced(receipt_body(r), "inode=0", "inode=5");
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, parse_receipt_body(body, ReceiptKind::Receipt));
}

TEST(UsedMarks, AreNamedByExpiryIdAndKindAndPrunedOnlyOnceExpired)
{
    const auto r = a_receipt();
    const auto mark = used_mark_name(r);
    EXPECT_EQ(mark, std::to_string(r.expires) + "." + kId + ".receipt");
    EXPECT_EQ(used_mark_name(a_handle()), std::to_string(a_handle().expires) + "." + kId + ".handle");
    EXPECT_FALSE(used_mark_prunable(mark, r.expires - 1));
    EXPECT_TRUE(used_mark_prunable(mark, r.expires));
    for (const auto* other :
         {"", "x", ".tmp", "12.abc.receipt", "0123.0123456789abcdef0123456789abcdef.receipt",
          "12.0123456789abcdef0123456789abcdef.snapshot", "-1.0123456789abcdef0123456789abcdef.handle"}) {
        EXPECT_FALSE(used_mark_prunable(other, r.expires + 100000)) << other;
    }
}

TEST(UsedMarks, LiveBesideTheReceiptKey)
{
    EXPECT_EQ(used_receipts_dir("/var/lib/native-runtime/receipt.key"), "/var/lib/native-runtime/used-receipts");
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, used_receipts_dir("relative/key"));
}

TEST(ReceiptFiles, AreNamedAfterTheReceiptId)
{
    EXPECT_EQ(receipt_file_name("ab"), "ab.receipt");
    EXPECT_EQ(snapshot_file_name("ab"), "ab.snapshot");
}
