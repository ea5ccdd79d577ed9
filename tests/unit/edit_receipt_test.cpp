#include "core/edit_receipt.h"

#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

using namespace nr::core;
using ::testing::HasSubstr;

namespace {

const std::string kMac(64, 'a');

EditReceipt a_receipt()
{
    EditReceipt r;
    r.id = "0123456789abcdef0123456789abcdef";
    r.owner = "alice";
    r.chat = "chat-1";
    r.job = "job-7";
    r.path = "src/main.c";
    r.device = 2049;
    r.inode = 1234567;
    r.before_sha256 = std::string(64, '1');
    r.after_sha256 = std::string(64, '2');
    r.time = 1764670000;
    return r;
}

std::string replaced(std::string text, const std::string& from, const std::string& to)
{
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
}

} // namespace

TEST(AReceipt, ParsesBackToTheSameFields)
{
    const auto text = receipt_text(a_receipt(), kMac);
    const auto signed_receipt = split_receipt(text);
    EXPECT_EQ(signed_receipt.mac, kMac);
    const auto back = parse_receipt_body(signed_receipt.body);
    EXPECT_EQ(back.id, a_receipt().id);
    EXPECT_EQ(back.owner, "alice");
    EXPECT_EQ(back.chat, "chat-1");
    EXPECT_EQ(back.job, "job-7");
    EXPECT_EQ(back.path, "src/main.c");
    EXPECT_EQ(back.device, 2049U);
    EXPECT_EQ(back.inode, 1234567U);
    EXPECT_EQ(back.before_sha256, std::string(64, '1'));
    EXPECT_EQ(back.after_sha256, std::string(64, '2'));
    EXPECT_EQ(back.time, 1764670000);
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
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, parse_receipt_body(body + "owner=bob\n"));
}

TEST(AReceiptWithReorderedLines, IsInvalid)
{
    const auto body = replaced(receipt_body(a_receipt()), "owner=alice\nchat=chat-1\n", "chat=chat-1\nowner=alice\n");
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, parse_receipt_body(body));
}

TEST(AReceiptWithANonCanonicalNumber, IsInvalid)
{
    for (const auto* inode : {"inode=01234567", "inode=+1234567", "inode=-1", "inode=1234567x", "inode="}) {
        const auto body = replaced(receipt_body(a_receipt()), "inode=1234567", inode);
        NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, parse_receipt_body(body));
    }
}

TEST(AReceiptWithAHostileOwner, IsInvalid)
{
    const auto body = replaced(receipt_body(a_receipt()), "owner=alice", "owner=../bob");
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, parse_receipt_body(body));
}

TEST(AReceiptOfAnotherVersion, IsInvalid)
{
    const auto body = replaced(receipt_body(a_receipt()), "native-runtime-receipt 1", "native-runtime-receipt 2");
    NR_EXPECT_REFUSED(e, ErrorKind::ReceiptInvalid, parse_receipt_body(body));
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

TEST(AReceipt, IsCurrentOnlyWhileTheFileIsTheEditedOne)
{
    const auto r = a_receipt();
    EXPECT_NO_THROW(check_receipt_current(r, 2049, 1234567, r.after_sha256));
    NR_EXPECT_REFUSED(later, ErrorKind::ReceiptStale, check_receipt_current(r, 2049, 1234567, std::string(64, '3')));
    NR_EXPECT_REFUSED(swapped, ErrorKind::ReceiptStale, check_receipt_current(r, 2049, 7654321, r.after_sha256));
    NR_EXPECT_REFUSED(moved, ErrorKind::ReceiptStale, check_receipt_current(r, 2050, 1234567, r.after_sha256));
}

TEST(ReceiptFiles, AreNamedAfterTheReceiptId)
{
    EXPECT_EQ(receipt_file_name("ab"), "ab.receipt");
    EXPECT_EQ(snapshot_file_name("ab"), "ab.snapshot");
}
