// SPDX-License-Identifier: Apache-2.0
// Host-auth admission: the config choice, the queue each adapter uses, and
// the decisions of the ticket queue (src/core/config/config.cpp read_host_auth,
// src/core/host_auth.*, admission_queue.*).

#include "core/config/config.h"
#include "core/launch/admission_queue.h"
#include "core/launch/host_auth.h"
#include "core/plan/session_plan.h"

#include "config_fixtures.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>

using namespace nr::core;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

namespace {

using nr::test::parse;

// Seven lines; text appended with four spaces lands in adapters.codex.
const std::string kBase = nr::test::minimal_config("codex", "/opt/codex/bin/codex");

SessionPlan plan_for(const Config& config, const std::string& adapter = "codex")
{
    SessionRequest request;
    request.owner = "alice";
    request.chat = "c-1";
    request.adapter = adapter;
    request.argv = {"codex", "--version"};
    return plan_session(config, request, RunAsUser{"worker", 1000, 1000},
                        HostFacts{"/usr/libexec/native-runtime/native-runtime-launch", {}, {}}, "token");
}

} // namespace

// ------------------------------------------------------------ configuration

TEST(AnAdapterWithoutHostAuth, IsSerialInAQueueNamedAfterItself)
{
    const auto config = parse(kBase);
    EXPECT_EQ(config.adapters.at("codex").host_auth.admission, AdmissionMode::Serial);
    EXPECT_EQ(plan_for(config).launch.admission.queue_dir, "native-runtime/.host-auth/codex");
    EXPECT_TRUE(plan_for(config).launch.admission.serial());
}

TEST(AClientManagedAdapter, GetsNoQueue)
{
    const auto config = parse(kBase + "    host_auth: {admission: client-managed}\n");
    EXPECT_EQ(config.adapters.at("codex").host_auth.admission, AdmissionMode::ClientManaged);
    EXPECT_THAT(plan_for(config).launch.admission.queue_dir, IsEmpty());
    EXPECT_FALSE(plan_for(config).launch.admission.serial());
}

TEST(TwoAdaptersWithOneHostAuthGroup, ShareOneQueue)
{
    const auto config = parse(kBase + "    host_auth: {admission: serial, group: openai}\n"
                                      "  codex-acp:\n"
                                      "    executable: /opt/codex/bin/codex\n"
                                      "    host_auth: {group: openai}\n");
    EXPECT_EQ(plan_for(config).launch.admission.queue_dir, "native-runtime/.host-auth/openai");
    EXPECT_EQ(plan_for(config, "codex-acp").launch.admission.queue_dir, "native-runtime/.host-auth/openai");
}

TEST(AnUnknownAdmissionMode, IsRefusedAtItsLine)
{
    NR_EXPECT_REFUSED(e, ErrorKind::ConfigInvalid, parse(kBase + "    host_auth:\n      admission: parallel\n"));
    EXPECT_THAT(e->what(), StartsWith("cfg.yaml:9: adapters.codex.host_auth.admission: "));
    EXPECT_THAT(e->what(), HasSubstr("expected serial or client-managed"));
}

TEST(AnUnknownHostAuthKey, IsRefused)
{
    NR_EXPECT_REFUSED(e, ErrorKind::ConfigInvalid, parse(kBase + "    host_auth:\n      lock_dir: /tmp/x\n"));
    EXPECT_THAT(e->what(), StartsWith("cfg.yaml:9: adapters.codex.host_auth.lock_dir: unknown key"));
}

// The same reader as every other section: the key is judged before its value.
TEST(AnUnknownHostAuthKeyWithAListValue, IsRefusedAsUnknownNotAsAWrongType)
{
    NR_EXPECT_REFUSED(e, ErrorKind::ConfigInvalid, parse(kBase + "    host_auth:\n      lock_dir: [/tmp/x]\n"));
    EXPECT_THAT(e->what(), StartsWith("cfg.yaml:9: adapters.codex.host_auth.lock_dir: unknown key"));
}

TEST(AHostAuthGroupThatIsNotAnId, IsRefused)
{
    for (const auto* group : {"../escape", ".hidden", "a/b", "\"\""}) {
        SCOPED_TRACE(group);
        NR_EXPECT_REFUSED(e, ErrorKind::ConfigInvalid,
                          parse(kBase + "    host_auth:\n      group: " + std::string(group) + "\n"));
        EXPECT_THAT(e->what(), HasSubstr("adapters.codex.host_auth.group"));
    }
}

TEST(AHostAuthThatIsNotAMapping, IsRefused)
{
    NR_EXPECT_REFUSED(e, ErrorKind::ConfigInvalid, parse(kBase + "    host_auth: serial\n"));
    EXPECT_THAT(e->what(), HasSubstr("adapters.codex.host_auth: expected a mapping"));
    NR_EXPECT_REFUSED(d, ErrorKind::ConfigInvalid, parse(kBase + "    host_auth:\n      group: a\n      group: b\n"));
    EXPECT_THAT(d->what(), HasSubstr("duplicate key"));
}

TEST(ASessionDirectoryInsideTheLockState, IsRefusedWhenPlanned)
{
    auto config = parse(kBase + "    session_dirs: [\"/var/lib/nr/native-runtime/.host-auth/{owner}\"]\n");
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, plan_for(config));
    EXPECT_THAT(e->what(), HasSubstr("host-auth lock state"));
    // Control: the same template next to it is fine.
    config = parse(kBase + "    session_dirs: [\"/var/lib/nr/native-runtime/sessions/{owner}\"]\n");
    EXPECT_NO_THROW((void)plan_for(config));
}

TEST(TheAdmissionRoot, LiesInDataDirWhereNoOwnerTreeCanBeNamedLikeIt)
{
    EXPECT_EQ(admission_root("/var/lib/nr"), "/var/lib/nr/native-runtime/.host-auth");
}

// ------------------------------------------------------------ the ticket queue

TEST(ATicketName, SortsLikeItsNumberAndParsesBack)
{
    EXPECT_EQ(ticket_name(42), "ticket-00000000000000000042");
    EXPECT_LT(ticket_name(9), ticket_name(10));
    EXPECT_EQ(parse_ticket_name(ticket_name(42)), 42U);
    const auto highest = std::numeric_limits<std::uint64_t>::max();
    EXPECT_EQ(parse_ticket_name(ticket_name(highest)), highest);
}

TEST(NamesThatAreNotTickets, AreNotParsedAsTickets)
{
    for (const auto* name : {"queue.lock", "ticket-42", "ticket-0000000000000000004x", "ticket-00000000000000000000",
                             "ticket-99999999999999999999", "xicket-00000000000000000001", ".", ".."}) {
        EXPECT_EQ(parse_ticket_name(name), std::nullopt) << name;
    }
}

TEST(TheTicketsInADirectory, AreItsTicketNamesInNumericOrder)
{
    EXPECT_THAT(tickets_in({ticket_name(10), "queue.lock", ticket_name(2), ".", ticket_name(7)}),
                ElementsAre(2, 7, 10));
}

TEST(ANewcomer, TakesTheNumberAfterTheHighestPresent)
{
    EXPECT_EQ(next_ticket({}), 1U);
    EXPECT_EQ(next_ticket({3, 9, 4}), 10U);
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, next_ticket({std::numeric_limits<std::uint64_t>::max()}));
}

TEST(AWaiter, ChecksOnlyOlderTicketsOldestFirst)
{
    EXPECT_THAT(tickets_ahead({9, 3, 5, 12, 7}, 7), ElementsAre(3, 5));
    EXPECT_THAT(tickets_ahead({7, 8}, 7), IsEmpty());
}
