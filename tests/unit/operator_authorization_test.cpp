// SPDX-License-Identifier: Apache-2.0
#include "core/plan/operator_authorization.h"

#include "core/journal/journal_fields.h"
#include "test_paths.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

using namespace nr::core;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

std::map<std::string, std::string> fields_of(const LogRecord& record)
{
    return {record.fields.begin(), record.fields.end()};
}

std::string policy_text()
{
    std::ifstream in(NR_DBUS_DIR "/org.metis.NativeRuntime1.policy");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

TEST(StoppingASession, IsAllowedToItsOwnerWithoutPolkit)
{
    EXPECT_EQ(stop_session_verdict(1000, "1000"), OperatorVerdict::Allowed);
}

TEST(StoppingASession, IsAllowedToRootWithoutPolkit)
{
    EXPECT_EQ(stop_session_verdict(0, "1000"), OperatorVerdict::Allowed);
}

TEST(StoppingAnotherOwnersSession, AsksPolkit)
{
    EXPECT_EQ(stop_session_verdict(1001, "1000"), OperatorVerdict::AskPolkit);
}

TEST(StoppingAUnitThatBelongsToNoOne, IsRefusedWithoutAskingPolkit)
{
    for (const auto* user : {"", "alice", "01000", "-1", "1000x"}) {
        EXPECT_EQ(stop_session_verdict(1001, user), OperatorVerdict::Refused) << user;
        EXPECT_EQ(stop_session_verdict(0, user), OperatorVerdict::Refused) << user;
    }
}

TEST(RunningTheCanary, IsAllowedToRootWithoutPolkit)
{
    EXPECT_EQ(run_canary_verdict(0), OperatorVerdict::Allowed);
}

TEST(RunningTheCanary, AsksPolkitForAnyoneElse)
{
    EXPECT_EQ(run_canary_verdict(1000), OperatorVerdict::AskPolkit);
}

TEST(EachOperatorAction, HasItsOwnPolkitActionId)
{
    EXPECT_EQ(polkit_action_id(OperatorAction::ManageSessions), "org.metis.NativeRuntime1.manage-sessions");
    EXPECT_EQ(polkit_action_id(OperatorAction::RunCanary), "org.metis.NativeRuntime1.run-canary");
}

TEST(TheShippedPolicyFile, DeclaresEveryActionWithAuthAdminKeepForActiveSessionsOnly)
{
    const auto text = policy_text();
    ASSERT_FALSE(text.empty());
    for (const auto action : {OperatorAction::ManageSessions, OperatorAction::RunCanary}) {
        const auto start = text.find("<action id=\"" + std::string(polkit_action_id(action)) + "\">");
        ASSERT_NE(start, std::string::npos) << polkit_action_id(action);
        const auto block = text.substr(start, text.find("</action>", start) - start);
        EXPECT_THAT(block, HasSubstr("<allow_any>no</allow_any>"));
        EXPECT_THAT(block, HasSubstr("<allow_inactive>no</allow_inactive>"));
        EXPECT_THAT(block, HasSubstr("<allow_active>auth_admin_keep</allow_active>"));
    }
}

TEST(ThePolkitCheck, AllowsInteractionOnlyWhenTheCallerAllowedIt)
{
    EXPECT_EQ(polkit_check_flags(true), 1U);
    EXPECT_EQ(polkit_check_flags(false), 0U);
}

TEST(ThePolkitCheck, WaitsAsLongAsSystemdsDefaultMethodTimeout)
{
    EXPECT_EQ(kPolkitTimeout, std::chrono::seconds(25));
}

TEST(APolkitCheck, IsAskedWhileTheCallerAndTheHelperAreUnderTheirBounds)
{
    EXPECT_TRUE(polkit_may_ask(0, 0));
    EXPECT_TRUE(polkit_may_ask(kPolkitPendingTotal - 1, kPolkitPendingPerCaller - 1));
}

TEST(APolkitCheck, IsNotAskedForACallerWithItsBoundOfChecksWaiting)
{
    EXPECT_FALSE(polkit_may_ask(kPolkitPendingPerCaller, kPolkitPendingPerCaller));
}

TEST(APolkitCheck, IsNotAskedWhenTheHelperHasItsBoundOfChecksWaitingForAnyone)
{
    EXPECT_FALSE(polkit_may_ask(kPolkitPendingTotal, 0));
}

TEST(APolkitCheckOverItsBound, IsARefusalRecordedWithTheLimitError)
{
    const PolkitReply reply{std::string(kPolkitLimitError)};
    EXPECT_EQ(polkit_outcome(reply), PolkitOutcome::Unavailable);
    EXPECT_FALSE(polkit_grants(polkit_outcome(reply)));
}

TEST(APolkitReply, GrantsOnlyWhenIsAuthorized)
{
    EXPECT_EQ(polkit_outcome({"", true, false}), PolkitOutcome::Authorized);
    EXPECT_TRUE(polkit_grants(polkit_outcome({"", true, false})));
    EXPECT_FALSE(polkit_grants(polkit_outcome({"", false, false})));
}

TEST(APolkitChallenge, IsARefusalWhenNoAgentAnswered)
{
    EXPECT_EQ(polkit_outcome({"", false, true}), PolkitOutcome::Challenge);
    EXPECT_FALSE(polkit_grants(PolkitOutcome::Challenge));
}

TEST(NoPolkit, IsARefusal)
{
    for (const auto* error : {"org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NoReply",
                              "org.freedesktop.DBus.Error.Timeout", "org.freedesktop.systemd1.MaskedUnit"}) {
        EXPECT_EQ(polkit_outcome({error, false, false}), PolkitOutcome::Unavailable) << error;
        // An error wins over whatever the reply fields say.
        EXPECT_EQ(polkit_outcome({error, true, false}), PolkitOutcome::Unavailable) << error;
    }
    EXPECT_FALSE(polkit_grants(PolkitOutcome::Unavailable));
}

TEST(APolkitDecisionRecord, NamesTheActionTheCallerAndTheResult)
{
    const auto record = polkit_check_record("StopSession", OperatorAction::ManageSessions, Caller{1001, 42},
                                            SessionRef{"alice", "c1", {}, {}}, PolkitReply{"", true, false});
    EXPECT_EQ(record.event, LogEvent::PolkitChecked);
    EXPECT_EQ(record.priority, Priority::Notice);
    const auto fields = fields_of(record);
    EXPECT_EQ(fields.at(kFieldPolkitAction), "org.metis.NativeRuntime1.manage-sessions");
    EXPECT_EQ(fields.at(kFieldPolkitResult), "authorized");
    EXPECT_EQ(fields.at(kFieldMethod), "StopSession");
    EXPECT_EQ(fields.at(kFieldCallerUid), "1001");
    EXPECT_EQ(fields.at(kFieldCallerPid), "42");
    EXPECT_EQ(fields.at(kFieldOwner), "alice");
    EXPECT_EQ(fields.count(kFieldPolkitError), 0U);
    EXPECT_THAT(record.message, HasSubstr("authorized"));
}

TEST(APolkitFailureRecord, IsAWarningThatNamesTheBusError)
{
    const auto record = polkit_check_record("RunCanary", OperatorAction::RunCanary, Caller{1001, {}}, {},
                                            PolkitReply{"org.freedesktop.DBus.Error.ServiceUnknown", false, false});
    EXPECT_EQ(record.priority, Priority::Warning);
    const auto fields = fields_of(record);
    EXPECT_EQ(fields.at(kFieldPolkitResult), "unavailable");
    EXPECT_EQ(fields.at(kFieldPolkitError), "org.freedesktop.DBus.Error.ServiceUnknown");
    EXPECT_EQ(fields.count(kFieldCallerPid), 0U);
    EXPECT_THAT(record.message, HasSubstr("(org.freedesktop.DBus.Error.ServiceUnknown)"));
}
