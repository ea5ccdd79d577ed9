// SPDX-License-Identifier: Apache-2.0
// status's journal lines (core/cli/journal_line.h): journalctl's short
// format, with what the writer chose escaped.

#include "core/cli/journal_line.h"

#include <gtest/gtest.h>

using namespace nr::core;

TEST(AJournalLine, ReadsLikeJournalctlShort)
{
    const std::map<std::string, std::string> fields{{"_HOSTNAME", "host"},
                                                    {"SYSLOG_IDENTIFIER", "native-runtimed"},
                                                    {"_PID", "321"},
                                                    {"MESSAGE", "started session"}};
    EXPECT_EQ(journal_short_line("Dec 04 21:51:02", fields, 0),
              "Dec 04 21:51:02 host native-runtimed[321]: started session");
}

TEST(AJournalLine, TakesJournaldsPidOverTheOneTheWriterClaims)
{
    const std::map<std::string, std::string> fields{{"SYSLOG_PID", "1"}, {"_PID", "55"}, {"_COMM", "sh"}};
    EXPECT_EQ(journal_pid(fields), "55");
    EXPECT_EQ(journal_identifier(fields), "sh");
    EXPECT_EQ(journal_short_line("T", fields, 0), "T sh[55]: ");
}

TEST(AJournalLine, WithoutIdentifierOrPidSaysUnknown)
{
    EXPECT_EQ(journal_short_line("T", {{"MESSAGE", "m"}}, 0), "T unknown: m");
}

TEST(AJournalLine, EscapesControlCharactersInTheMessageAndIdentifier)
{
    const std::map<std::string, std::string> fields{{"SYSLOG_IDENTIFIER", "x\x1b[8m"},
                                                    {"MESSAGE", "line1\nfake line\x1b[2K"}};
    EXPECT_EQ(journal_short_line("T", fields, 0), "T x\\x1b[8m: line1\\x0afake line\\x1b[2K");
}

TEST(AJournalLine, IsCutToTheColumnsGiven)
{
    EXPECT_EQ(journal_short_line("T", {{"_COMM", "sh"}, {"MESSAGE", "0123456789"}}, 10), "T sh: 012…");
}
