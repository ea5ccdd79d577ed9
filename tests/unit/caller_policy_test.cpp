// SPDX-License-Identifier: Apache-2.0
#include "core/plan/caller_policy.h"

#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace nr::core;
using ::testing::HasSubstr;

namespace {

CallerPolicy policy()
{
    CallerPolicy p;
    p.users = {"alice"};
    p.groups = {"agents"};
    p.run_as_users = {"svc", "bob"};
    return p;
}

CallerIdentity caller(uid_t uid, std::string name, std::vector<std::string> groups = {})
{
    return CallerIdentity{uid, std::move(name), std::move(groups)};
}

} // namespace

TEST(ACallerListedByUserName, RunsAsThemselves)
{
    EXPECT_EQ(decide_run_as_user(policy(), caller(1000, "alice", {"alice"}), ""), "alice");
}

TEST(ACallerInAnAllowedGroup, RunsAsThemselves)
{
    EXPECT_EQ(decide_run_as_user(policy(), caller(1001, "carol", {"carol", "agents"}), ""), "carol");
}

TEST(ACallerNeitherListedNorInAnAllowedGroup, IsDenied)
{
    NR_EXPECT_REFUSED(e, ErrorKind::AccessDenied, decide_run_as_user(policy(), caller(1002, "mallory", {"users"}), ""));
    EXPECT_THAT(e->what(), HasSubstr("uid 1002"));
    EXPECT_THAT(e->what(), HasSubstr("not an allowed caller"));
}

TEST(ACallerWhoseGroupOnlyMatchesAnAllowedUserName, IsDenied)
{
    // Users and groups are separate name spaces: group "alice" is not user alice.
    NR_EXPECT_REFUSED(e, ErrorKind::AccessDenied, decide_run_as_user(policy(), caller(1003, "dave", {"alice"}), ""));
}

TEST(ACallerWhoseNameIsUnknownToNss, IsDeniedEvenInAnAllowedGroup)
{
    NR_EXPECT_REFUSED(e, ErrorKind::AccessDenied, decide_run_as_user(policy(), caller(1004, "", {"agents"}), ""));
}

TEST(AnEmptyPolicy, AllowsNoNonRootCaller)
{
    NR_EXPECT_REFUSED(e, ErrorKind::AccessDenied,
                      decide_run_as_user(CallerPolicy{}, caller(1000, "alice", {"agents"}), ""));
}

TEST(ANonRootCallerNamingThemselves, RunsAsThemselves)
{
    EXPECT_EQ(decide_run_as_user(policy(), caller(1000, "alice"), "alice"), "alice");
}

TEST(ANonRootCallerNamingAnotherUser, IsDenied)
{
    NR_EXPECT_REFUSED(e, ErrorKind::AccessDenied, decide_run_as_user(policy(), caller(1000, "alice"), "bob"));
    EXPECT_THAT(e->what(), HasSubstr("only root may choose"));
}

TEST(ANonRootCallerNamingRoot, IsDenied)
{
    NR_EXPECT_REFUSED(e, ErrorKind::AccessDenied, decide_run_as_user(policy(), caller(1000, "alice"), "root"));
}

TEST(ARootCallerWithoutRunAs, IsDenied)
{
    NR_EXPECT_REFUSED(e, ErrorKind::AccessDenied, decide_run_as_user(policy(), caller(0, "root", {"root"}), ""));
    EXPECT_THAT(e->what(), HasSubstr("must name a run-as user"));
}

TEST(ARootCallerNamingAListedRunAsUser, RunsAsThatUser)
{
    EXPECT_EQ(decide_run_as_user(policy(), caller(0, "root"), "svc"), "svc");
    EXPECT_EQ(decide_run_as_user(policy(), caller(0, "root"), "bob"), "bob");
}

TEST(ARootCallerNamingAnUnlistedUser, IsDenied)
{
    NR_EXPECT_REFUSED(e, ErrorKind::AccessDenied, decide_run_as_user(policy(), caller(0, "root"), "alice"));
    EXPECT_THAT(e->what(), HasSubstr("alice"));
    EXPECT_THAT(e->what(), HasSubstr("callers.run_as_users"));
}

TEST(ARootCallerNamingRoot, IsDeniedEvenWhenRootIsListed)
{
    auto p = policy();
    p.run_as_users.push_back("root");
    NR_EXPECT_REFUSED(e, ErrorKind::AccessDenied, decide_run_as_user(p, caller(0, "root"), "root"));
}

TEST(ARootCaller, NeedsNoEntryInUsersOrGroups)
{
    CallerPolicy p;
    p.run_as_users = {"svc"};
    EXPECT_EQ(decide_run_as_user(p, caller(0, "root"), "svc"), "svc");
}

TEST(TheCanary, RunsAsTheUserItIsAskedFor)
{
    EXPECT_EQ(canary_user_name(policy(), "bob"), "bob");
}

TEST(TheCanaryNamingNoUser, RunsAsTheFirstRunAsUserElseTheFirstCallerElseNobody)
{
    auto p = policy();
    EXPECT_EQ(canary_user_name(p, ""), "svc");
    p.run_as_users.clear();
    EXPECT_EQ(canary_user_name(p, ""), "alice");
    p.users.clear();
    EXPECT_EQ(canary_user_name(p, ""), "nobody") << "a group is no user";
}

TEST(ManagingASession, IsAllowedForRootAndTheSessionsOwnUid)
{
    EXPECT_TRUE(may_manage_session(0, 1000));
    EXPECT_TRUE(may_manage_session(1000, 1000));
    EXPECT_FALSE(may_manage_session(1001, 1000));
    EXPECT_FALSE(may_manage_session(1000, 0));
}

TEST(ASessionsOwnUser, MayActOnIt)
{
    EXPECT_TRUE(may_access_session(1000, "1000"));
}

TEST(Root, MayActOnAnySession)
{
    EXPECT_TRUE(may_access_session(0, "1000"));
}

TEST(AnotherUser, MayNotActOnASession)
{
    EXPECT_FALSE(may_access_session(1001, "1000"));
}

TEST(ASessionUnitWhoseUserIsNotADecimalUid, BelongsToNoOneNotEvenRoot)
{
    for (const char* user : {"", "alice", "+1000", "-1", "01000", "1000 ", " 1000", "1000x", "99999999999999999999"}) {
        for (const uid_t caller : {0U, 1000U}) {
            EXPECT_FALSE(may_access_session(caller, user)) << user << " by " << caller;
        }
    }
}

TEST(ASessionUnitRunningAsUidZero, IsRootsOwn)
{
    EXPECT_TRUE(may_access_session(0, "0"));
    EXPECT_FALSE(may_access_session(1000, "0"));
}
