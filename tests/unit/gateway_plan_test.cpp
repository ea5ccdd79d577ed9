// SPDX-License-Identifier: Apache-2.0
#include "core/plan/gateway_plan.h"

#include "core/base/error.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

using namespace nr::core;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

const std::string kToken(64, 'a');

EgressPolicy openai_and_anthropic()
{
    EgressPolicy egress;
    egress.allow_hosts = {"api.openai.com", "api.anthropic.com", "github.com"};
    egress.providers = {
        {"api.openai.com", "openai-key", "Authorization", "Bearer", "OPENAI_API_KEY", "OPENAI_BASE_URL", "/v1"},
        {"api.anthropic.com", "anthropic-key", "x-api-key", "", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", ""}};
    return egress;
}

} // namespace

TEST(TheGatewayEnvironment, PointsEachProviderAtItsPathOnTheListenerAndEverythingElseAtTheProxy)
{
    EXPECT_THAT(gateway_environment(openai_and_anthropic(), 8080, kToken),
                ElementsAre("OPENAI_API_KEY=" + kToken, "OPENAI_BASE_URL=http://127.0.0.1:8080/api.openai.com/v1",
                            "ANTHROPIC_API_KEY=" + kToken, "ANTHROPIC_BASE_URL=http://127.0.0.1:8080/api.anthropic.com",
                            "HTTPS_PROXY=http://127.0.0.1:8080", "https_proxy=http://127.0.0.1:8080",
                            "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost"));
}

TEST(AnOfflineGatewayEnvironment, StillSetsTheProxySoNothingGoesAroundIt)
{
    EXPECT_THAT(gateway_environment({}, 9000, kToken),
                ElementsAre("HTTPS_PROXY=http://127.0.0.1:9000", "https_proxy=http://127.0.0.1:9000",
                            "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost"));
}

TEST(AGatewayToken, IsSixtyFourLowerCaseHexDigits)
{
    EXPECT_TRUE(is_gateway_token(std::string(64, '0') + ""));
    EXPECT_TRUE(is_gateway_token("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"));
    EXPECT_FALSE(is_gateway_token(""));
    EXPECT_FALSE(is_gateway_token(std::string(63, 'a')));
    EXPECT_FALSE(is_gateway_token(std::string(65, 'a')));
    EXPECT_FALSE(is_gateway_token(std::string(64, 'A')));
}

TEST(AGatewaySessionRegistration, CarriesTheIdentityTokenPolicyAndConfiguredLimits)
{
    Config config;
    config.gateway.max_header_bytes = 1;
    config.gateway.max_request_bytes = 2;
    config.gateway.max_response_bytes = 3;
    config.gateway.max_connections_per_session = 4;
    config.gateway.max_tunnels_per_session = 5;
    config.gateway.max_buffered_bytes_per_session = 6;
    config.gateway.header_timeout_sec = 7;
    config.gateway.idle_timeout_sec = 8;
    AdapterProfile adapter;
    adapter.name = "codex";
    adapter.egress = openai_and_anthropic();
    const auto session = gateway_session(config, adapter, "nr-unit.service", "alice", "c-1", kToken);
    EXPECT_EQ(session, (GatewaySession{"nr-unit.service", "alice", "c-1", "codex", kToken, openai_and_anthropic(), 1, 2,
                                       3, 1000, 3600, 4, 5, 6, 7, 8}));
}

TEST(AGatewaySessionRegistration, FromTheDefaultConfigIsOneTheGatewayAccepts)
{
    AdapterProfile adapter;
    adapter.name = "codex";
    adapter.egress = openai_and_anthropic();
    // Named: GCC 12 at -O3 takes a temporary Config's strings for
    // uninitialized (-Wmaybe-uninitialized, a false positive).
    const Config defaults;
    const auto session = gateway_session(defaults, adapter, "nr-unit.service", "alice", "c-1", kToken);
    EXPECT_EQ(session.request_budget, 1000U);
    EXPECT_EQ(decode_gateway_control(encode_gateway_register(session)).session, session);
}

TEST(AGatewaySessionRegistration, CarriesItsOwnersBudgetAndTheWindow)
{
    Config config;
    config.gateway.request_budget.window_sec = 60;
    config.gateway.request_budget.per_owner = 100;
    config.gateway.request_budget.owners = {{"alice", 7}};
    AdapterProfile adapter;
    adapter.egress = openai_and_anthropic();
    const auto alice = gateway_session(config, adapter, "a.service", "alice", "c1", kToken);
    const auto bob = gateway_session(config, adapter, "b.service", "bob", "c1", kToken);
    EXPECT_EQ(alice.request_budget, 7U);
    EXPECT_EQ(bob.request_budget, 100U);
    EXPECT_EQ(alice.budget_window_sec, 60U);
}

TEST(AnOwnersRequestBudget, IsTheDefaultUnlessTheOwnersEntrySetsOne)
{
    RequestBudgetSettings budget;
    EXPECT_EQ(owner_request_budget(budget, "alice"), 1000U);
    budget.owners = {{"alice", 5}};
    EXPECT_EQ(owner_request_budget(budget, "alice"), 5U);
    EXPECT_EQ(owner_request_budget(budget, "bob"), 1000U);
}

TEST(AnOwnersRequestBudget, IsNoneWhenTurnedOffForEveryoneOrForThatOwner)
{
    RequestBudgetSettings budget;
    budget.owners = {{"alice", 0}, {"bob", 5}};
    EXPECT_EQ(owner_request_budget(budget, "alice"), 0U);
    budget.per_owner = 0;
    EXPECT_EQ(owner_request_budget(budget, "carol"), 0U);
    EXPECT_EQ(owner_request_budget(budget, "bob"), 5U);
}

TEST(TheGatewaysOk, IsTheOnlyAnswerThatRegisters)
{
    EXPECT_NO_THROW(check_gateway_answer("ok\n"));
    for (const auto* answer : {"", "ok", "OK\n", "ok\nmore", "error \n", "yes\n"}) {
        const auto e = nr::test::error_from([&] { check_gateway_answer(answer); });
        ASSERT_TRUE(e.has_value()) << answer;
        EXPECT_EQ(e->kind(), ErrorKind::LaunchFailed);
    }
}

TEST(TheGatewaysRefusal, IsLaunchFailedWithItsReasonMadePrintable)
{
    const auto e = nr::test::error_from([] { check_gateway_answer("error unknown credential openai-key\x1b\n"); });
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->kind(), ErrorKind::LaunchFailed);
    EXPECT_THAT(e->what(), HasSubstr("refused the session: unknown credential openai-key?"));
}

TEST(TheGatewaysRefusalOfAUnitItStillServes, IsTheOnlyAnswerTakenForAStaleRegistration)
{
    EXPECT_TRUE(is_stale_registration("error unit already registered\n"));
    for (const auto* answer : {"ok\n", "", "error unit already registered", "error unit already registered twice\n",
                               "error the listener is not bound to 127.0.0.1\n"}) {
        EXPECT_FALSE(is_stale_registration(answer)) << answer;
    }
}
