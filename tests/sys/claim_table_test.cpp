// SPDX-License-Identifier: Apache-2.0
// The helper's table of launch specs waiting for their launcher
// (src/daemon/claim_table.cpp, compiled into this binary: it has no bus
// dependency, only sys/base/random_token).
#include "daemon/claim_table.h"

#include <gtest/gtest.h>

#include <chrono>

using namespace nr::daemon;

namespace {

constexpr uid_t kSessionUid = 1001;
const std::string kUnit = "native-runtime-alice-chat1.service";

PendingLaunch launch_for(const std::string& unit, bool confirmed)
{
    PendingLaunch launch;
    launch.unit_name = unit;
    launch.uid = kSessionUid;
    launch.spec.bwrap_argv = {"/usr/bin/bwrap"};
    launch.deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    launch.confirmed = confirmed;
    return launch;
}

} // namespace

TEST(AConfirmedSpec, IsHandedOutOnceToItsOwnUnitAndUid)
{
    ClaimTable table;
    table.add("t1", launch_for(kUnit, true));
    EXPECT_EQ(table.state("t1", kUnit, kSessionUid), ClaimState::Ready);
    const auto spec = table.claim("t1", kUnit, kSessionUid);
    ASSERT_TRUE(spec.has_value());
    EXPECT_EQ(spec->bwrap_argv.front(), "/usr/bin/bwrap");
    EXPECT_EQ(table.state("t1", kUnit, kSessionUid), ClaimState::NoMatch);
    EXPECT_FALSE(table.claim("t1", kUnit, kSessionUid).has_value());
}

TEST(ASpecWhoseHardeningIsStillBeingReadBack, IsNotHandedOutUntilConfirmed)
{
    ClaimTable table;
    table.add("t1", launch_for(kUnit, false));
    EXPECT_EQ(table.state("t1", kUnit, kSessionUid), ClaimState::Unconfirmed);
    EXPECT_FALSE(table.claim("t1", kUnit, kSessionUid).has_value());
    // The refused attempt did not burn it.
    table.confirm("t1");
    EXPECT_EQ(table.state("t1", kUnit, kSessionUid), ClaimState::Ready);
    EXPECT_TRUE(table.claim("t1", kUnit, kSessionUid).has_value());
}

TEST(AnUnconfirmedSpecThatIsWithdrawn, NoLongerMatchesItsLauncher)
{
    ClaimTable table;
    table.add("t1", launch_for(kUnit, false));
    table.remove("t1");
    EXPECT_EQ(table.state("t1", kUnit, kSessionUid), ClaimState::NoMatch);
}

TEST(AClaimFromAnotherUnitOrUid, MatchesNothingAndLeavesTheSpecInPlace)
{
    ClaimTable table;
    table.add("t1", launch_for(kUnit, false));
    EXPECT_EQ(table.state("t1", "native-runtime-mallory-x.service", kSessionUid), ClaimState::NoMatch);
    EXPECT_EQ(table.state("t1", kUnit, kSessionUid + 1), ClaimState::NoMatch);
    table.confirm("t1");
    EXPECT_FALSE(table.claim("t1", kUnit, kSessionUid + 1).has_value());
    EXPECT_TRUE(table.claim("t1", kUnit, kSessionUid).has_value());
}

namespace {

PendingLaunch gateway_launch_for(const std::string& unit)
{
    auto launch = launch_for(unit, true);
    launch.spec.gateway_port = 8080;
    nr::core::GatewaySession session;
    session.unit = unit;
    session.token = std::string(64, 'a');
    launch.gateway = session;
    return launch;
}

} // namespace

TEST(AGatewaySessionsRegistration, IsTakenOnceByTheLauncherThatClaimedItsSpec)
{
    ClaimTable table;
    table.add("t1", gateway_launch_for(kUnit));
    // Not before the Claim: the listener comes from the launcher that has the spec.
    EXPECT_FALSE(table.take_gateway("t1", kUnit, kSessionUid).has_value());
    ASSERT_TRUE(table.claim("t1", kUnit, kSessionUid).has_value());
    EXPECT_FALSE(table.empty()) << "the helper stays while a handover is due";
    EXPECT_FALSE(table.take_gateway("t1", "native-runtime-bob-chat1.service", kSessionUid).has_value());
    EXPECT_FALSE(table.take_gateway("t1", kUnit, kSessionUid + 1).has_value());
    EXPECT_FALSE(table.take_gateway("t2", kUnit, kSessionUid).has_value());
    const auto session = table.take_gateway("t1", kUnit, kSessionUid);
    ASSERT_TRUE(session.has_value()) << "the mismatched attempts did not burn it";
    EXPECT_EQ(session->unit, kUnit);
    EXPECT_FALSE(table.take_gateway("t1", kUnit, kSessionUid).has_value()) << "only once";
    EXPECT_TRUE(table.empty());
}

TEST(ASessionWithoutAGateway, HasNoRegistrationToTake)
{
    ClaimTable table;
    table.add("t1", launch_for(kUnit, true));
    ASSERT_TRUE(table.claim("t1", kUnit, kSessionUid).has_value());
    EXPECT_FALSE(table.take_gateway("t1", kUnit, kSessionUid).has_value());
    EXPECT_TRUE(table.empty());
}

TEST(AGatewayRegistrationOfAnEndedUnit, IsDropped)
{
    ClaimTable table;
    table.add("t1", gateway_launch_for(kUnit));
    ASSERT_TRUE(table.claim("t1", kUnit, kSessionUid).has_value());
    table.remove_unit(kUnit);
    EXPECT_FALSE(table.take_gateway("t1", kUnit, kSessionUid).has_value());
    EXPECT_TRUE(table.empty());
}

TEST(AnEmptyClaimTable, HasNoDeadlineToWakeFor)
{
    const ClaimTable table;
    EXPECT_FALSE(table.next_deadline().has_value());
}

TEST(TheNextDeadlineOfTheClaimTable, IsItsEarliestSpecsAndExpiresAtThatInstant)
{
    ClaimTable table;
    auto later = launch_for(kUnit, true);
    auto sooner = launch_for("native-runtime-bob-chat1.service", false);
    sooner.deadline = later.deadline - std::chrono::seconds(30);
    table.add("later", later);
    table.add("sooner", sooner);
    ASSERT_EQ(table.next_deadline(), sooner.deadline);
    table.drop_expired(sooner.deadline);
    EXPECT_EQ(table.next_deadline(), later.deadline) << "the loop woke at the deadline, and the spec is gone";
    EXPECT_EQ(table.state("sooner", "native-runtime-bob-chat1.service", kSessionUid), ClaimState::NoMatch);
}

TEST(AHandoverStillDue, KeepsItsSpecsDeadlineForTheLoop)
{
    ClaimTable table;
    const auto launch = gateway_launch_for(kUnit);
    table.add("t1", launch);
    ASSERT_TRUE(table.claim("t1", kUnit, kSessionUid).has_value());
    EXPECT_EQ(table.next_deadline(), launch.deadline);
    table.drop_expired(launch.deadline);
    EXPECT_FALSE(table.next_deadline().has_value());
    EXPECT_TRUE(table.empty());
}

TEST(ASpecSentByChannel, IsNeverHandedOutByClaimEvenToItsOwnUnitAndUid)
{
    ClaimTable table;
    auto launch = launch_for(kUnit, true);
    launch.by_channel = true;
    table.add("t1", std::move(launch));
    EXPECT_EQ(table.state("t1", kUnit, kSessionUid), ClaimState::NoMatch);
    EXPECT_FALSE(table.claim("t1", kUnit, kSessionUid).has_value());
    // The refused Claim did not burn it: the helper still sends it, once.
    ASSERT_TRUE(table.take_for_channel("t1").has_value());
    EXPECT_FALSE(table.take_for_channel("t1").has_value());
}

TEST(ASpecSentByChannel, IsNotTakenBeforeItsHardeningIsConfirmed)
{
    ClaimTable table;
    auto launch = launch_for(kUnit, false);
    launch.by_channel = true;
    table.add("t1", std::move(launch));
    EXPECT_FALSE(table.take_for_channel("t1").has_value());
    table.confirm("t1");
    EXPECT_TRUE(table.take_for_channel("t1").has_value());
}

TEST(ASpecClaimedOverTheBus, IsNeverTakenForAChannel)
{
    ClaimTable table;
    table.add("t1", launch_for(kUnit, true));
    EXPECT_FALSE(table.take_for_channel("t1").has_value());
    EXPECT_TRUE(table.claim("t1", kUnit, kSessionUid).has_value());
}
