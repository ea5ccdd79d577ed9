// SPDX-License-Identifier: Apache-2.0
// What a session wrote, printed on an operator's terminal
// (core/cli/terminal_text.h): no control character gets through.

#include "core/cli/terminal_text.h"

#include <gtest/gtest.h>

#include <string>

using namespace nr::core;
using namespace std::string_literals;

TEST(EscapingForATerminal, LeavesPrintableAsciiAndUtf8Alone)
{
    EXPECT_EQ(escape_control("sleep 60"), "sleep 60");
    EXPECT_EQ(escape_control("café ✓ 日本"), "café ✓ 日本");
}

TEST(EscapingForATerminal, ShowsAnAnsiEscapeSequenceAsText)
{
    // Clear the screen, move home, retitle the window.
    EXPECT_EQ(escape_control("\x1b[2J\x1b[H\x1b]0;owned\x07"), "\\x1b[2J\\x1b[H\\x1b]0;owned\\x07");
}

TEST(EscapingForATerminal, ShowsNewlineTabCarriageReturnAndDelete)
{
    EXPECT_EQ(escape_control("a\nb\tc\rd\x7f"), "a\\x0ab\\x09c\\x0dd\\x7f");
}

TEST(EscapingForATerminal, ShowsUtf8EncodedC1ControlsSuchAsCsi)
{
    // U+009B (CSI) starts an escape sequence on terminals that take C1.
    EXPECT_EQ(escape_control("\xc2\x9b"
                             "2J"),
              "\\xc2\\x9b2J");
}

TEST(EscapingForATerminal, ShowsBytesThatAreNotUtf8)
{
    EXPECT_EQ(escape_control("\xff\xfe"), "\\xff\\xfe");
    EXPECT_EQ(escape_control("\xc0\xaf"), "\\xc0\\xaf") << "overlong '/'";
    EXPECT_EQ(escape_control("\xed\xa0\x80"), "\\xed\\xa0\\x80") << "a surrogate";
    EXPECT_EQ(escape_control("x\xe2\x9c"), "x\\xe2\\x9c") << "cut short at the end";
}

TEST(EscapingForATerminal, DoublesABackslashSoThatEscapesReadBackUnambiguously)
{
    EXPECT_EQ(escape_control("\\x1b"), "\\\\x1b");
}

TEST(ACommandLine, IsItsArgumentsSeparatedBySpaces)
{
    EXPECT_EQ(cmdline_text("sleep\0"
                           "60\0"s),
              "sleep 60");
    EXPECT_EQ(cmdline_text("sh\0-c\0sleep 60\0"s), "sh -c sleep 60");
    EXPECT_EQ(cmdline_text("rewritten title"), "rewritten title") << "no NUL at all";
    EXPECT_EQ(cmdline_text(""), "");
}

TEST(ACommandLine, HasEscapeSequencesInItsArgumentsEscaped)
{
    EXPECT_EQ(cmdline_text("echo\0\x1b[31mred\n\0"s), "echo \\x1b[31mred\\x0a");
}

TEST(FittingToColumns, CutsLongTextWithAnEllipsisWithinTheWidth)
{
    EXPECT_EQ(fit_columns("abcdef", 4), "abc…");
    EXPECT_EQ(fit_columns("abcd", 4), "abcd");
    EXPECT_EQ(fit_columns("abcdef", 0), "abcdef") << "0: no limit";
}

TEST(FittingToColumns, CountsCodePointsNotBytes)
{
    EXPECT_EQ(fit_columns("├─12 ééé", 8), "├─12 ééé");
    EXPECT_EQ(fit_columns("├─12 éééé", 8), "├─12 éé…");
}
