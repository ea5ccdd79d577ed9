// SPDX-License-Identifier: Apache-2.0
#include "core/base/error.h"
#include "core/gateway/egress.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

using namespace nr::core;

namespace {

GatewaySession openai_session()
{
    GatewaySession s;
    s.unit = "native-runtime-alice-c1.service";
    s.owner = "alice";
    s.chat = "c1";
    s.adapter = "codex-gw";
    s.token = std::string(64, 'a');
    s.max_header_bytes = 16384;
    s.max_request_bytes = 4194304;
    s.max_response_bytes = 67108864;
    s.egress.allow_hosts = {"api.openai.com", "github.com"};
    s.egress.allow_addresses = {parse_ip_prefix("10.0.0.0/8")};
    s.egress.providers = {ProviderRoute{"api.openai.com", "openai-key", "Authorization", "Bearer", "OPENAI_API_KEY",
                                        "OPENAI_BASE_URL", "/v1"}};
    return s;
}

ErrorKind refusal_of(const std::string& message)
{
    try {
        decode_gateway_control(message);
    } catch (const Error& e) {
        return e.kind();
    }
    ADD_FAILURE() << "accepted: " << message;
    return ErrorKind::AccessDenied;
}

using nr::test::replaced;

} // namespace

TEST(AGatewayRegistration, DecodesToTheSessionItWasEncodedFrom)
{
    const auto session = openai_session();
    const auto control = decode_gateway_control(encode_gateway_register(session));
    EXPECT_EQ(control.kind, GatewayControl::Kind::Register);
    EXPECT_EQ(control.session, session);
}

TEST(AGatewayRegistration, KeepsAnEmptySchemeAndBasePath)
{
    auto session = openai_session();
    session.egress.allow_hosts = {"localhost:8443"};
    session.egress.allow_addresses = {};
    session.egress.providers = {
        ProviderRoute{"localhost:8443", "anthropic", "x-api-key", "", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", ""}};
    EXPECT_EQ(decode_gateway_control(encode_gateway_register(session)).session, session);
}

TEST(AGatewayRevoke, DecodesToItsUnit)
{
    const auto control = decode_gateway_control(encode_gateway_revoke("native-runtime-alice-c1.service"));
    EXPECT_EQ(control.kind, GatewayControl::Kind::Revoke);
    EXPECT_EQ(control.session.unit, "native-runtime-alice-c1.service");
}

TEST(AGatewayRegistration, IsRefusedForAProviderHostOffTheAllowList)
{
    auto session = openai_session();
    session.egress.allow_hosts = {"github.com"};
    EXPECT_THROW(encode_gateway_register(session), Error);
    const auto good = encode_gateway_register(openai_session());
    EXPECT_EQ(refusal_of(replaced(good, "allow_host=api.openai.com\n", "")), ErrorKind::InvalidArgument);
}

TEST(AGatewayRegistration, IsRefusedWithAShortOrUpperCaseToken)
{
    const auto good = encode_gateway_register(openai_session());
    EXPECT_EQ(refusal_of(replaced(good, std::string(64, 'a'), std::string(63, 'a'))), ErrorKind::InvalidArgument);
    EXPECT_EQ(refusal_of(replaced(good, std::string(64, 'a'), std::string(64, 'A'))), ErrorKind::InvalidArgument);
}

TEST(AGatewayRegistration, IsRefusedInAnyOtherSpellingThanTheEncoders)
{
    const auto good = encode_gateway_register(openai_session());
    EXPECT_EQ(refusal_of(replaced(good, "max_header_bytes=16384", "max_header_bytes=016384")),
              ErrorKind::InvalidArgument);
    EXPECT_EQ(refusal_of(replaced(good, "allow_address=10.0.0.0/8", "allow_address=10.0.0.0/08")),
              ErrorKind::InvalidArgument);
    EXPECT_EQ(refusal_of(replaced(good, "owner=alice\nchat=c1\n", "chat=c1\nowner=alice\n")),
              ErrorKind::InvalidArgument);
    EXPECT_EQ(refusal_of(good + "extra=1\n"), ErrorKind::InvalidArgument);
    EXPECT_EQ(refusal_of(good.substr(0, good.size() - 1)), ErrorKind::InvalidArgument);
}

TEST(AGatewayRegistration, IsRefusedWithAZeroLimit)
{
    const auto good = encode_gateway_register(openai_session());
    EXPECT_EQ(refusal_of(replaced(good, "max_response_bytes=67108864", "max_response_bytes=0")),
              ErrorKind::InvalidArgument);
}

TEST(AGatewayRegistration, CarriesTheOwnersRequestBudget)
{
    auto session = openai_session();
    session.request_budget = 500;
    session.budget_window_sec = 60;
    EXPECT_EQ(decode_gateway_control(encode_gateway_register(session)).session, session);
}

TEST(AGatewayRegistration, IsRefusedWithABudgetOrWindowOutsideTheirBounds)
{
    const auto good = encode_gateway_register(openai_session());
    EXPECT_EQ(refusal_of(replaced(good, "budget_window_sec=3600", "budget_window_sec=0")), ErrorKind::InvalidArgument);
    EXPECT_EQ(refusal_of(replaced(good, "budget_window_sec=3600", "budget_window_sec=86401")),
              ErrorKind::InvalidArgument);
    EXPECT_EQ(refusal_of(replaced(good, "request_budget=0", "request_budget=100001")), ErrorKind::InvalidArgument);
    EXPECT_EQ(refusal_of(replaced(good, "request_budget=0", "request_budget=-1")), ErrorKind::InvalidArgument);
}

TEST(AGatewaySession, HasTheConfigsDefaultPerSessionLimits)
{
    const GatewaySession session;
    const GatewaySettings settings;
    EXPECT_EQ(session.max_connections, settings.max_connections_per_session);
    EXPECT_EQ(session.max_tunnels, settings.max_tunnels_per_session);
    EXPECT_EQ(session.max_buffered_bytes, settings.max_buffered_bytes_per_session);
    EXPECT_EQ(session.header_timeout_sec, settings.header_timeout_sec);
    EXPECT_EQ(session.idle_timeout_sec, settings.idle_timeout_sec);
    EXPECT_EQ(session.max_connections, 128U);
    EXPECT_EQ(session.max_tunnels, 32U);
    EXPECT_EQ(session.max_buffered_bytes, 8ULL << 20U);
    EXPECT_EQ(session.header_timeout_sec, 20U);
    EXPECT_EQ(session.idle_timeout_sec, 120U);
}

TEST(AGatewayRegistration, CarriesThePerSessionLimitsInOrderAfterTheBudget)
{
    auto session = openai_session();
    session.max_connections = 4096;
    session.max_tunnels = 1024;
    session.max_buffered_bytes = 1ULL << 30U;
    session.header_timeout_sec = 300;
    session.idle_timeout_sec = 86400;
    const auto message = encode_gateway_register(session);
    EXPECT_NE(message.find("budget_window_sec=3600\nmax_connections=4096\nmax_tunnels=1024\n"
                           "max_buffered_bytes=1073741824\nheader_timeout_sec=300\nidle_timeout_sec=86400\n"
                           "allow_host="),
              std::string::npos)
        << message;
    EXPECT_EQ(decode_gateway_control(message).session, session);
}

TEST(AGatewayRegistration, IsAcceptedWithTheSmallestPerSessionLimits)
{
    auto session = openai_session();
    session.max_connections = 1;
    session.max_tunnels = 1;
    session.max_buffered_bytes = session.max_header_bytes + (64U << 10U);
    session.header_timeout_sec = 1;
    session.idle_timeout_sec = 1;
    EXPECT_EQ(decode_gateway_control(encode_gateway_register(session)).session, session);
}

TEST(AGatewayRegistration, IsRefusedWithoutAnyOfThePerSessionLimits)
{
    const auto good = encode_gateway_register(openai_session());
    for (const auto* line : {"max_connections=128\n", "max_tunnels=32\n", "max_buffered_bytes=8388608\n",
                             "header_timeout_sec=20\n", "idle_timeout_sec=120\n"}) {
        SCOPED_TRACE(line);
        EXPECT_EQ(refusal_of(replaced(good, line, "")), ErrorKind::InvalidArgument);
    }
}

TEST(AGatewayRegistration, IsRefusedWithAPerSessionLimitOfZeroOrAboveItsBound)
{
    const auto good = encode_gateway_register(openai_session());
    for (const auto& [line, zero, over] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"max_connections=128", "max_connections=0", "max_connections=4097"},
             {"max_tunnels=32", "max_tunnels=0", "max_tunnels=1025"},
             {"max_buffered_bytes=8388608", "max_buffered_bytes=0", "max_buffered_bytes=1073741825"},
             {"header_timeout_sec=20", "header_timeout_sec=0", "header_timeout_sec=301"},
             {"idle_timeout_sec=120", "idle_timeout_sec=0", "idle_timeout_sec=86401"},
         }) {
        SCOPED_TRACE(line);
        EXPECT_EQ(refusal_of(replaced(good, line, zero)), ErrorKind::InvalidArgument);
        EXPECT_EQ(refusal_of(replaced(good, line, over)), ErrorKind::InvalidArgument);
        EXPECT_EQ(refusal_of(replaced(good, line, line + "0000000000000000000000")), ErrorKind::InvalidArgument);
    }
}

TEST(AGatewayRegistration, IsRefusedWithMoreTunnelsThanConnections)
{
    auto session = openai_session();
    session.max_connections = 10;
    session.max_tunnels = 11;
    EXPECT_THROW(encode_gateway_register(session), Error);
    session.max_tunnels = 10;
    const auto good = encode_gateway_register(session);
    EXPECT_EQ(refusal_of(replaced(good, "max_tunnels=10", "max_tunnels=11")), ErrorKind::InvalidArgument);
}

TEST(AGatewayRegistration, IsRefusedWithBufferedBytesBelowAHeaderAndSixtyFourKibibytes)
{
    auto session = openai_session(); // max_header_bytes 16384
    session.max_buffered_bytes = 16384 + 65536;
    const auto good = encode_gateway_register(session);
    EXPECT_EQ(refusal_of(replaced(good, "max_buffered_bytes=81920", "max_buffered_bytes=81919")),
              ErrorKind::InvalidArgument);
    session.max_buffered_bytes = 81919;
    EXPECT_THROW(encode_gateway_register(session), Error);
}

TEST(AGatewayRegistration, IsRefusedWithABasePathThatCouldLeaveTheHost)
{
    for (const std::string path : {"v1", "/v1/../x", "/v1?x=1", "/a//b", "/%2e%2e"}) {
        auto session = openai_session();
        session.egress.providers.front().base_path = path;
        EXPECT_THROW(encode_gateway_register(session), Error) << path;
    }
}

TEST(AGatewayControlMessage, OfAnUnknownKindIsRefused)
{
    EXPECT_EQ(refusal_of("drop\nunit=u.service\n"), ErrorKind::InvalidArgument);
    EXPECT_EQ(refusal_of(""), ErrorKind::InvalidArgument);
    EXPECT_EQ(refusal_of("revoke\nunit=a b\n"), ErrorKind::InvalidArgument);
}

TEST(AnEgressHost, IsALowerCaseDnsNameWithAnOptionalPort)
{
    EXPECT_NO_THROW(check_egress_host("api.openai.com"));
    EXPECT_NO_THROW(check_egress_host("localhost"));
    EXPECT_NO_THROW(check_egress_host("localhost:8443"));
    EXPECT_NO_THROW(check_egress_host("xn--bcher-kva.example"));
}

TEST(AnEgressHost, IsNeitherAWildcardNorAnAddressNorMixedCase)
{
    for (const auto& host : std::vector<std::string>{"", "*.openai.com", "API.openai.com", "api.openai.com.", "1.2.3.4",
                                                     "[::1]", "::1", "a..b", "-a.com", "a-.com", "host:0", "host:65536",
                                                     "host:08", "host:", std::string(64, 'a') + ".com"}) {
        EXPECT_THROW(check_egress_host(host), std::invalid_argument) << host;
    }
}

TEST(ARegistrationKeptByAnEarlierVersion, IsServedWithTheDefaultLimitsAfterAnUpgrade)
{
    const auto session = openai_session();
    auto old = encode_gateway_register(session);
    for (const auto* line :
         {"max_connections=", "max_tunnels=", "max_buffered_bytes=", "header_timeout_sec=", "idle_timeout_sec="}) {
        const auto at = old.find(std::string("\n") + line);
        old.erase(at + 1, old.find('\n', at + 1) - at);
    }
    EXPECT_THROW(decode_gateway_control(old), Error) << "control: the strict decoder refuses the old form";
    EXPECT_EQ(decode_gateway_control(upgrade_stored_registration(old)).session, session);
    const auto current = encode_gateway_register(session);
    EXPECT_EQ(upgrade_stored_registration(current), current);
    EXPECT_EQ(upgrade_stored_registration(encode_gateway_revoke("u.service")), encode_gateway_revoke("u.service"));
}
