#include "core/log_query.h"

#include "test_support.h"

#include <gtest/gtest.h>

using namespace nr::core;

TEST(AnOwnersLogs, MatchTheOwnerFieldOnly)
{
    EXPECT_EQ(session_log_terms("alice", ""), (std::vector<std::vector<std::string>>{{"NATIVE_RUNTIME_OWNER=alice"}}));
}

TEST(OneChatsLogs, MatchItsFieldsOrItsUnit)
{
    const auto terms = session_log_terms("bob-x", "c1");
    ASSERT_EQ(terms.size(), 3U);
    EXPECT_EQ(terms[0], (std::vector<std::string>{"NATIVE_RUNTIME_OWNER=bob-x", "NATIVE_RUNTIME_CHAT=c1"}));
    EXPECT_EQ(terms[1], (std::vector<std::string>{"UNIT=native-runtime-bob\\x2dx-c1.service"}));
    EXPECT_EQ(terms[2], (std::vector<std::string>{"_SYSTEMD_UNIT=native-runtime-bob\\x2dx-c1.service"}));
}

TEST(ALogQueryWithABadId, IsRefused)
{
    NR_EXPECT_REFUSED(owner, ErrorKind::InvalidArgument, session_log_terms("a=b", ""));
    NR_EXPECT_REFUSED(chat, ErrorKind::InvalidArgument, session_log_terms("alice", "x\ny"));
}
