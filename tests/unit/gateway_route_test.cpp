// SPDX-License-Identifier: Apache-2.0
#include "core/gateway/gateway_route.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <variant>

using namespace nr::core;

namespace {

EgressPolicy policy()
{
    EgressPolicy p;
    p.allow_hosts = {"api.openai.com", "github.com", "localhost:8443"};
    ProviderRoute openai;
    openai.host = "api.openai.com";
    openai.credential = "openai-key";
    ProviderRoute local;
    local.host = "localhost:8443";
    local.credential = "local-key";
    local.header = "x-api-key";
    local.scheme = "";
    p.providers = {openai, local};
    return p;
}

template <typename T> T as(const Route& route)
{
    EXPECT_TRUE(std::holds_alternative<T>(route)) << "route index " << route.index();
    return std::holds_alternative<T>(route) ? std::get<T>(route) : T{};
}

} // namespace

TEST(AProviderRequest, IsForwardedToItsHostWithTheRestOfThePath)
{
    const auto p = policy();
    const auto forward = as<RouteForward>(decide_route(p, "POST", "/api.openai.com/v1/responses?x=1", 8080));
    EXPECT_EQ(forward.host, "api.openai.com");
    EXPECT_EQ(forward.target, "/v1/responses?x=1");
    EXPECT_EQ(forward.provider, &p.providers[0]);
}

TEST(AProviderRequestWithoutARest, IsForwardedToTheRoot)
{
    const auto p = policy();
    EXPECT_EQ(as<RouteForward>(decide_route(p, "GET", "/api.openai.com", 8080)).target, "/");
    EXPECT_EQ(as<RouteForward>(decide_route(p, "GET", "/api.openai.com?q", 8080)).target, "/?q");
}

TEST(AProviderWithAPort, IsMatchedWithItsPort)
{
    const auto p = policy();
    const auto forward = as<RouteForward>(decide_route(p, "GET", "/localhost:8443/v1/messages", 8080));
    EXPECT_EQ(forward.provider, &p.providers[1]);
    as<RouteRefuse>(decide_route(p, "GET", "/localhost/v1/messages", 8080));
}

TEST(AnAbsoluteFormRequestToTheOwnListener, IsAProviderRequest)
{
    const auto p = policy();
    const auto forward = as<RouteForward>(decide_route(p, "POST", "http://127.0.0.1:8080/api.openai.com/v1/x", 8080));
    EXPECT_EQ(forward.target, "/v1/x");
}

TEST(AnAbsoluteFormRequestToAnotherAuthority, IsRefusedAsPlainHttp)
{
    const auto refusal = as<RouteRefuse>(decide_route(policy(), "GET", "http://api.openai.com/v1/x", 8080));
    EXPECT_EQ(refusal.reason, "plain-http");
    EXPECT_EQ(refusal.host, "api.openai.com");
    EXPECT_EQ(as<RouteRefuse>(decide_route(policy(), "GET", "http://127.0.0.1:9/api.openai.com/", 8080)).reason,
              "plain-http");
}

TEST(AnAllowListedHostThatIsNoProvider, IsNotForwardedWithAKey)
{
    const auto refusal = as<RouteRefuse>(decide_route(policy(), "GET", "/github.com/x", 8080));
    EXPECT_EQ(refusal.reason, "not-a-provider");
    EXPECT_EQ(refusal_message(refusal), "native-runtime gateway: github.com is not on this session's allow-list");
}

TEST(AConnectToAnAllowListedNonProvider, IsTunnelledOnPort443)
{
    const auto tunnel = as<RouteTunnel>(decide_route(policy(), "CONNECT", "GitHub.com:443", 8080));
    EXPECT_EQ(tunnel.host, "github.com");
    EXPECT_EQ(tunnel.port, 443);
}

TEST(AConnectToAnotherPort, IsRefusedUnlessTheAllowListNamesIt)
{
    EXPECT_EQ(as<RouteRefuse>(decide_route(policy(), "CONNECT", "github.com:22", 8080)).reason, "not-on-allow-list");
    auto p = policy();
    p.allow_hosts.emplace_back("example.org:8443");
    EXPECT_EQ(as<RouteTunnel>(decide_route(p, "CONNECT", "example.org:8443", 8080)).port, 8443);
    as<RouteRefuse>(decide_route(p, "CONNECT", "example.org:443", 8080));
}

TEST(AConnectToAProviderHost, IsRefused)
{
    EXPECT_EQ(as<RouteRefuse>(decide_route(policy(), "CONNECT", "api.openai.com:443", 8080)).reason,
              "provider-via-connect");
    EXPECT_EQ(as<RouteRefuse>(decide_route(policy(), "CONNECT", "localhost:8443", 8080)).reason,
              "provider-via-connect");
}

TEST(AConnectToAnUnlistedHost, IsRefusedNamingTheHost)
{
    const auto refusal = as<RouteRefuse>(decide_route(policy(), "CONNECT", "evil.example:443", 8080));
    EXPECT_EQ(refusal.reason, "not-on-allow-list");
    EXPECT_EQ(refusal.host, "evil.example");
}

TEST(AMalformedConnectTarget, IsRefused)
{
    for (const auto* target : {"github.com", "github.com:", "github.com:0", "github.com:65536", "github.com:0443",
                               "github.com:44x", ":443"}) {
        as<RouteRefuse>(decide_route(policy(), "CONNECT", target, 8080));
    }
}

TEST(AHostileHostName, IsSanitisedInTheRefusal)
{
    const auto refusal = as<RouteRefuse>(decide_route(policy(), "GET", "/evil\r\nX-Bad: 1/x", 8080));
    EXPECT_EQ(refusal.host.find_first_of("\r\n "), std::string::npos);
    EXPECT_LE(sanitize_host(std::string(1000, 'a')).size(), 255U);
}

TEST(ATargetThatIsNeitherOriginNorAbsoluteForm, IsRefused)
{
    EXPECT_EQ(as<RouteRefuse>(decide_route(policy(), "GET", "*", 8080)).reason, "bad-target");
    EXPECT_EQ(as<RouteRefuse>(decide_route(policy(), "GET", "", 8080)).reason, "bad-target");
}

TEST(TheSessionsToken, MatchesOnlyWithTheProvidersScheme)
{
    const auto p = policy();
    const std::string token(64, 'a');
    EXPECT_TRUE(token_matches(p.providers[0], "Bearer " + token, token));
    EXPECT_FALSE(token_matches(p.providers[0], token, token));
    EXPECT_FALSE(token_matches(p.providers[0], "Bearer " + token + "b", token));
    EXPECT_FALSE(token_matches(p.providers[0], "Bearer " + std::string(64, 'b'), token));
    EXPECT_TRUE(token_matches(p.providers[1], token, token));
    EXPECT_FALSE(token_matches(p.providers[1], "", ""));
}

TEST(TheRealKey, ReplacesTheTokenWithTheProvidersScheme)
{
    const auto p = policy();
    EXPECT_EQ(provider_header_value(p.providers[0], "sk-real"), "Bearer sk-real");
    EXPECT_EQ(provider_header_value(p.providers[1], "sk-real"), "sk-real");
}

TEST(HopByHopHeaders, IncludeTheFixedOnesAndThoseConnectionNames)
{
    const auto names = hop_by_hop_headers(" X-Foo ,keep-alive,, Bar");
    for (const auto* name :
         {"connection", "proxy-authorization", "keep-alive", "te", "trailer", "upgrade", "x-foo", "bar"}) {
        EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
    }
    EXPECT_EQ(std::count(names.begin(), names.end(), "keep-alive"), 1);
}

TEST(AHostWithAPort, SplitsIntoNameAndPort)
{
    EXPECT_EQ(split_host_port("localhost:8443").name, "localhost");
    EXPECT_EQ(split_host_port("localhost:8443").port, 8443);
    EXPECT_EQ(split_host_port("api.openai.com").port, 443);
    EXPECT_EQ(split_host_port("api.openai.com").name, "api.openai.com");
}

TEST(ConstantTimeEqual, ComparesContentAndLength)
{
    EXPECT_TRUE(constant_time_equal("abc", "abc"));
    EXPECT_FALSE(constant_time_equal("abc", "abd"));
    EXPECT_FALSE(constant_time_equal("abc", "ab"));
    EXPECT_TRUE(constant_time_equal("", ""));
}

TEST(AMethodNoProviderApiUses, IsRefusedWith405BeforeAnyRouting)
{
    const auto p = policy();
    for (const auto* method : {"TRACE", "PUT", "PATCH", "OPTIONS", "PROPFIND", "get"}) {
        const auto refusal = as<RouteRefuse>(decide_route(p, method, "/api.openai.com/v1/models", 8080));
        EXPECT_EQ(refusal.status, 405U) << method;
        EXPECT_EQ(refusal.reason, "method") << method;
    }
    for (const auto* method : {"GET", "POST", "DELETE", "HEAD"}) {
        as<RouteForward>(decide_route(p, method, "/api.openai.com/v1/models", 8080));
    }
}

TEST(APathWithAnEmptyOrDotSegment, IsRefusedWith400)
{
    const auto p = policy();
    for (const auto* target :
         {"/api.openai.com//evil.example/v1/models", "/api.openai.com/v1//models", "/api.openai.com/v1/../admin",
          "/api.openai.com/./v1", "/api.openai.com/v1/%2e%2E/admin", "/api.openai.com/v1/%2E", "/api.openai.com/v1\\..",
          "/api.openai.com/v1%2fmodels", "/api.openai.com/v1%5C..", "http://127.0.0.1:8080/api.openai.com//x"}) {
        const auto refusal = as<RouteRefuse>(decide_route(p, "GET", target, 8080));
        EXPECT_EQ(refusal.status, 400U) << target;
        EXPECT_EQ(refusal.reason, "bad-path") << target;
    }
}

TEST(APathWithDotsInsideASegmentOrTheQuery, IsForwarded)
{
    const auto p = policy();
    for (const auto* target : {"/api.openai.com/v1/files/a..b", "/api.openai.com/v1/.well-known",
                               "/api.openai.com/v1/models/", "/api.openai.com/v1?next=//x/../y"}) {
        as<RouteForward>(decide_route(p, "GET", target, 8080));
    }
}

TEST(ARouteRefusal, Is403UnlessItIsAboutTheMethodOrThePath)
{
    const auto p = policy();
    EXPECT_EQ(as<RouteRefuse>(decide_route(p, "GET", "/example.com/x", 8080)).status, 403U);
    EXPECT_EQ(as<RouteRefuse>(decide_route(p, "CONNECT", "example.com:443", 8080)).status, 403U);
}
