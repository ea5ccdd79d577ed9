// SPDX-License-Identifier: Apache-2.0
#include "core/journal/journal_native.h"

#include "core/journal/log_event.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace nr::core;
using namespace std::string_literals;

TEST(JournalFieldsWithoutNewlines, AreSentAsOneLineEach)
{
    EXPECT_EQ(journal_native_payload({"MESSAGE=seccomp refused listen()", "PRIORITY=5", "NATIVE_RUNTIME_ERRNO=1"}),
              "MESSAGE=seccomp refused listen()\nPRIORITY=5\nNATIVE_RUNTIME_ERRNO=1\n");
}

TEST(AJournalValueWithANewline, IsSentWithItsLittleEndianLengthInstead)
{
    EXPECT_EQ(journal_native_payload({"MESSAGE=two\nlines", "PRIORITY=3"}),
              "MESSAGE\n\x09\0\0\0\0\0\0\0two\nlines\nPRIORITY=3\n"s);
}

TEST(AnEmptyJournalValue, IsStillAField)
{
    EXPECT_EQ(journal_native_payload({"NATIVE_RUNTIME_JOB="}), "NATIVE_RUNTIME_JOB=\n");
}

TEST(AJournalEntryWithoutAValidFieldName, IsRefused)
{
    for (const auto* entry : {"MESSAGE", "=value", "message=lower", "_PID=1", "A B=c"}) {
        NR_EXPECT_REFUSED(error, ErrorKind::InvalidArgument, journal_native_payload({entry}));
    }
}

TEST(ARecordOfTheProduct, BecomesThePayloadOfItsJournalFields)
{
    auto record = log_record(LogEvent::SyscallsDenied, "summary");
    record.fields.emplace_back("NATIVE_RUNTIME_DENIALS", "listen=30");
    const auto payload = journal_native_payload(journal_fields(record, "native-runtime-launch"));
    EXPECT_EQ(payload, "MESSAGE=summary\nPRIORITY=5\nSYSLOG_IDENTIFIER=native-runtime-launch\nMESSAGE_ID=" +
                           std::string(message_id(LogEvent::SyscallsDenied)) + "\nNATIVE_RUNTIME_DENIALS=listen=30\n");
}
