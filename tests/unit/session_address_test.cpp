// SPDX-License-Identifier: Apache-2.0
// How native-runtimectl reads a session named positionally: OWNER/CHAT or
// the session's unit name, and how that agrees with --owner/--chat
// (core/cli/session_address.h).

#include "core/base/unit_name.h"
#include "core/cli/session_address.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <string>

using namespace nr::core;
using nr::test::error_from;

namespace {

// The message of the InvalidArgument `f` throws, or a note that it did not.
template <typename F> std::string usage_error(F&& f)
{
    const auto e = error_from(std::forward<F>(f));
    if (!e) {
        return "<nothing thrown>";
    }
    EXPECT_EQ(e->kind(), ErrorKind::InvalidArgument) << e->what();
    return e->what();
}

bool mentions(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

TEST(ASessionAddress, IsOwnerSlashChat)
{
    EXPECT_EQ(parse_session_address("alice/c1"), (SessionAddress{"alice", "c1"}));
    EXPECT_EQ(parse_session_address("u@h.org/chat-1_x"), (SessionAddress{"u@h.org", "chat-1_x"}));
}

TEST(ASessionAddress, IsAlsoTheSessionsUnitName)
{
    EXPECT_EQ(parse_session_address("native-runtime-alice-c1.service"), (SessionAddress{"alice", "c1"}));
    // Dashes and '@' come back from their escapes.
    EXPECT_EQ(parse_session_address(session_unit_name("a-b", "u@h")), (SessionAddress{"a-b", "u@h"}));
    EXPECT_EQ(parse_session_address("native-runtime-a\\x2db-c.service"), (SessionAddress{"a-b", "c"}));
}

TEST(ASessionAddress, WithAnEmptyPartSaysWhichPartIsEmpty)
{
    EXPECT_TRUE(mentions(usage_error([] { parse_session_address("/c1"); }), "empty owner"));
    EXPECT_TRUE(mentions(usage_error([] { parse_session_address("alice/"); }), "empty chat"));
    EXPECT_TRUE(mentions(usage_error([] { parse_session_address("/"); }), "empty owner"));
    EXPECT_TRUE(mentions(usage_error([] { parse_session_address(""); }), "is empty"));
}

TEST(ASessionAddress, WithMoreThanOneSlashIsRefused)
{
    const auto message = usage_error([] { parse_session_address("alice/c1/x"); });
    EXPECT_TRUE(mentions(message, "more than one '/'")) << message;
    EXPECT_TRUE(mentions(message, "'alice/c1/x'")) << message;
}

TEST(ASessionAddress, WithAnInvalidIdNamesTheIdAndTheRule)
{
    const auto owner = usage_error([] { parse_session_address("bad=id/c1"); });
    EXPECT_TRUE(mentions(owner, "invalid owner")) << owner;
    EXPECT_TRUE(mentions(owner, "only letters, digits")) << owner;
    const auto chat = usage_error([] { parse_session_address("alice/-c"); });
    EXPECT_TRUE(mentions(chat, "invalid chat")) << chat;
    EXPECT_TRUE(
        mentions(usage_error([] { parse_session_address("alice/" + std::string(65, 'c')); }), "longer than 64"));
}

TEST(ASessionAddress, WithoutASlashMustBeASessionsUnitName)
{
    EXPECT_TRUE(mentions(usage_error([] { parse_session_address("alice"); }), "expected OWNER/CHAT"));
    EXPECT_TRUE(mentions(usage_error([] { parse_session_address("native-runtimed.service"); }), "no '/'"));
    EXPECT_TRUE(mentions(usage_error([] { parse_session_address("native-runtime-alice.slice"); }), "no '/'"));
    EXPECT_TRUE(mentions(usage_error([] { parse_session_address("native-runtime-a-b-c.service"); }), "no '/'"));
}

TEST(ASessionAddress, AsAUnitNameMustBeSpelledAsSystemdSpellsIt)
{
    // "\x61" is "a": the same ids, but no unit of that name ever exists.
    EXPECT_TRUE(mentions(usage_error([] { parse_session_address("native-runtime-\\x61-c.service"); }), "spelled"));
    EXPECT_TRUE(mentions(usage_error([] { parse_session_address("native-runtime-a\\x2D-c.service"); }), "no '/'"));
    EXPECT_TRUE(mentions(usage_error([] { parse_session_address("native-runtime-a\\x2-c.service"); }), "no '/'"));
    // Escapes of bytes no id has: a unit of this project never looks so.
    EXPECT_TRUE(
        mentions(usage_error([] { parse_session_address("native-runtime-a\\x20b-c.service"); }), "invalid owner"));
}

TEST(AnErrorAboutASessionAddress, DoesNotEchoUnprintableBytes)
{
    const auto message = usage_error([] { parse_session_address("a\x1b[2J/c"); });
    EXPECT_FALSE(mentions(message, "\x1b")) << message;
    EXPECT_TRUE(mentions(message, "invalid owner")) << message;
}

TEST(AnOwnerAddress, IsAnOwnerOrOwnerSlashChatOrAUnitName)
{
    EXPECT_EQ(parse_owner_address("alice"), (SessionAddress{"alice", ""}));
    EXPECT_EQ(parse_owner_address("alice/c1"), (SessionAddress{"alice", "c1"}));
    EXPECT_EQ(parse_owner_address("native-runtime-alice-c1.service"), (SessionAddress{"alice", "c1"}));
    EXPECT_TRUE(mentions(usage_error([] { parse_owner_address("bad=id"); }), "invalid owner"));
    EXPECT_TRUE(mentions(usage_error([] { parse_owner_address("alice/"); }), "empty chat"));
    EXPECT_TRUE(mentions(usage_error([] { parse_owner_address(""); }), "is empty"));
}

TEST(ResolvingASession, TakesThePositionalOrTheFlags)
{
    EXPECT_EQ(resolve_session_address(SessionAddress{"alice", "c1"}, {}, true), (SessionAddress{"alice", "c1"}));
    EXPECT_EQ(resolve_session_address(std::nullopt, {"alice", "c1"}, true), (SessionAddress{"alice", "c1"}));
    EXPECT_EQ(resolve_session_address(std::nullopt, {"alice", ""}, false), (SessionAddress{"alice", ""}));
}

TEST(ResolvingASession, AcceptsFlagsThatAgreeWithThePositional)
{
    EXPECT_EQ(resolve_session_address(SessionAddress{"alice", "c1"}, {"alice", "c1"}, true),
              (SessionAddress{"alice", "c1"}));
    EXPECT_EQ(resolve_session_address(SessionAddress{"alice", "c1"}, {"alice", ""}, true),
              (SessionAddress{"alice", "c1"}));
    // An owner-wide positional narrowed by --chat.
    EXPECT_EQ(resolve_session_address(SessionAddress{"alice", ""}, {"", "c1"}, false), (SessionAddress{"alice", "c1"}));
}

TEST(ResolvingASession, RefusesAFlagThatNamesAnotherOwnerOrChat)
{
    const auto owner = usage_error([] { resolve_session_address(SessionAddress{"alice", "c1"}, {"bob", ""}, true); });
    EXPECT_TRUE(mentions(owner, "alice/c1 names owner alice, but --owner names bob")) << owner;
    const auto chat = usage_error([] { resolve_session_address(SessionAddress{"alice", "c1"}, {"", "c2"}, true); });
    EXPECT_TRUE(mentions(chat, "names chat c1, but --chat names c2")) << chat;
}

TEST(ResolvingASession, RefusesAMissingOwnerOrRequiredChat)
{
    EXPECT_TRUE(mentions(usage_error([] { resolve_session_address(std::nullopt, {}, true); }), "no session given"));
    EXPECT_TRUE(mentions(usage_error([] {
                             resolve_session_address(std::nullopt, {"", "c1"}, true);
                         }),
                         "no session given"));
    EXPECT_TRUE(mentions(usage_error([] {
                             resolve_session_address(std::nullopt, {"alice", ""}, true);
                         }),
                         "no chat given"));
    EXPECT_TRUE(mentions(usage_error([] { resolve_session_address(std::nullopt, {}, false); }), "no owner given"));
    EXPECT_TRUE(mentions(usage_error([] {
                             resolve_session_address(SessionAddress{"alice", ""}, {}, true);
                         }),
                         "no chat given"));
}
