// SPDX-License-Identifier: Apache-2.0
#include "core/base/ids.h"

#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

using namespace nr::core;
using ::testing::HasSubstr;

namespace {

void expect_accepted(std::string_view id)
{
    EXPECT_NO_THROW(validate_id(IdKind::Chat, id)) << "id: " << id;
}

void expect_refused(std::string_view id)
{
    const auto e = nr::test::error_from([&] { validate_id(IdKind::Chat, id); });
    ASSERT_TRUE(e.has_value()) << "accepted: " << id;
    EXPECT_EQ(e->kind(), ErrorKind::InvalidArgument) << "id: " << id;
    EXPECT_THAT(e->what(), HasSubstr("chat")) << "id: " << id;
}

} // namespace

TEST(EachIdKind, HasTheFieldNameUsedInMessages)
{
    EXPECT_EQ(id_kind_name(IdKind::Owner), "owner");
    EXPECT_EQ(id_kind_name(IdKind::Chat), "chat");
    EXPECT_EQ(id_kind_name(IdKind::Job), "job");
    EXPECT_EQ(id_kind_name(IdKind::Adapter), "adapter");
}

TEST(AnIdOfLettersDigitsAndPunctuation, IsAccepted)
{
    expect_accepted("a");
    expect_accepted("7");
    expect_accepted("Chat_42");
    expect_accepted("user@example.org");
    expect_accepted("claude-code.v1_2");
}

TEST(AnEmptyId, IsRejectedNamingTheField)
{
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidArgument, validate_id(IdKind::Owner, ""));
    EXPECT_THAT(e->what(), HasSubstr("owner"));
    EXPECT_THAT(e->what(), HasSubstr("empty"));
}

TEST(AnIdOfExactly64Characters, IsAccepted)
{
    expect_accepted(std::string(64, 'a'));
}

TEST(AnIdOf65Characters, IsRejectedAsTooLong)
{
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidArgument, validate_id(IdKind::Job, std::string(65, 'a')));
    EXPECT_THAT(e->what(), HasSubstr("job"));
    EXPECT_THAT(e->what(), HasSubstr("64"));
}

TEST(AnIdStartingWithPunctuation, IsRejected)
{
    expect_refused(".hidden");
    expect_refused("-option");
    expect_refused("_x");
    expect_refused("@x");
    expect_refused("..");
}

TEST(AnIdWithCharactersOutsideTheAlphabet, IsRejected)
{
    expect_refused("a/b");
    expect_refused("a/../b");
    expect_refused("a b");
    expect_refused("a\nb");
    expect_refused("a\tb");
    expect_refused(std::string("a\0b", 3));
    expect_refused("a\\x2db");
    expect_refused("a:b");
    expect_refused("a*");
    expect_refused("a$b");
    expect_refused("\xc3\xbc"); // ü
    expect_refused("a\xc3\xbc");
}

TEST(DotsInsideAnId, AreAcceptedBecauseTheIdIsAlwaysASinglePathComponent)
{
    expect_accepted("a..b");
    expect_accepted("a.");
}

TEST(AnOptionalId, MayBeEmptyButOtherwiseFollowsTheSameRule)
{
    EXPECT_NO_THROW(validate_optional_id(IdKind::Job, ""));
    EXPECT_NO_THROW(validate_optional_id(IdKind::Job, "job-1"));
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidArgument, validate_optional_id(IdKind::Job, "job 1"));
    EXPECT_THAT(e->what(), HasSubstr("job"));
}
