// SPDX-License-Identifier: Apache-2.0
// The `network: gateway` keys: an adapter's `egress:` section and the
// top-level `gateway:` section (docs/configuration.md).
#include "core/config/config.h"

#include "config_error.h"
#include "config_fixtures.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

using namespace nr::core;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

namespace {

using nr::test::parse;

// Lines 1-7 as minimal_config(); line 8 is `network: gateway`, so an
// appended `    egress:` starts at line 9.
const std::string kGatewayAdapter = nr::test::minimal_config() + "    network: gateway\n";

// An egress section with one provider: its keys from line 10 on.
const std::string kOneProvider = kGatewayAdapter + "    egress:\n"                                 // 9
                                                   "      allow_hosts: [api.anthropic.com]\n"      // 10
                                                   "      providers:\n"                            // 11
                                                   "        - host: api.anthropic.com\n"           // 12
                                                   "          credential: anthropic-key\n"         // 13
                                                   "          key_env: ANTHROPIC_API_KEY\n"        // 14
                                                   "          base_url_env: ANTHROPIC_BASE_URL\n"; // 15

const char* const kProviders = "adapters.claude.egress.providers";

} // namespace

TEST(AGatewayAdapter, IsReadWithItsEgressPolicyAndTheProviderDefaults)
{
    const auto c = parse(kOneProvider + "      allow_addresses: [10.1.2.0/24]\n");
    const auto& claude = c.adapters.at("claude");
    EXPECT_EQ(claude.network, NetworkMode::Gateway);
    EXPECT_THAT(claude.egress.allow_hosts, ElementsAre("api.anthropic.com"));
    EXPECT_EQ(claude.egress.allow_addresses, (std::vector<IpPrefix>{parse_ip_prefix("10.1.2.0/24")}));
    ASSERT_EQ(claude.egress.providers.size(), 1U);
    const auto& route = claude.egress.providers.front();
    EXPECT_EQ(route, (ProviderRoute{"api.anthropic.com", "anthropic-key", "Authorization", "Bearer",
                                    "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", ""}));
}

TEST(AProvider, TakesItsHeaderSchemeAndBasePath)
{
    const auto c = parse(kOneProvider + "          header: x-api-key\n"
                                        "          scheme: \"\"\n"
                                        "          base_path: /v1\n");
    const auto& route = c.adapters.at("claude").egress.providers.front();
    EXPECT_EQ(route.header, "x-api-key");
    EXPECT_EQ(route.scheme, "");
    EXPECT_EQ(route.base_path, "/v1");
}

TEST(AGatewayAdapterWithoutEgress, IsOfflineThroughTheGateway)
{
    const auto c = parse(kGatewayAdapter);
    EXPECT_EQ(c.adapters.at("claude").network, NetworkMode::Gateway);
    EXPECT_THAT(c.adapters.at("claude").egress.allow_hosts, IsEmpty());
    EXPECT_THAT(c.adapters.at("claude").egress.providers, IsEmpty());
}

TEST(AnUnknownNetworkMode, IsRefusedNamingTheThreeModes)
{
    EXPECT_CONFIG_ERROR(nr::test::minimal_config() + "    network: proxy\n", 8, "adapters.claude.network",
                        "expected host, offline or gateway");
}

TEST(AnEgressSection, IsRefusedWithoutNetworkGateway)
{
    for (const auto* mode : {"host", "offline"}) {
        EXPECT_CONFIG_ERROR(nr::test::minimal_config() + "    network: " + mode +
                                "\n    egress:\n      allow_hosts: [api.openai.com]\n",
                            10, "adapters.claude.egress", "only adapters with network: gateway");
    }
    EXPECT_CONFIG_ERROR(nr::test::minimal_config() + "    egress:\n      allow_hosts: [api.openai.com]\n", 9,
                        "adapters.claude.egress", "only adapters with network: gateway");
}

TEST(AnUnknownEgressOrProviderKey, IsRefused)
{
    EXPECT_CONFIG_ERROR(kOneProvider + "      deny_hosts: [x]\n", 16, "adapters.claude.egress.deny_hosts",
                        "unknown key");
    EXPECT_CONFIG_ERROR(kOneProvider + "          token: x\n", 16, std::string(kProviders) + ".token", "unknown key");
}

TEST(AnAllowedHost, MustBeAnExactLowerCaseName)
{
    for (const auto* host : {"*.openai.com", "API.openai.com", "10.0.0.1", "api.openai.com.", "a b"}) {
        SCOPED_TRACE(host);
        const auto e = nr::test::error_from(
            [&] { (void)parse(kGatewayAdapter + "    egress:\n      allow_hosts: ['" + host + "']\n"); });
        ASSERT_TRUE(e.has_value());
        EXPECT_THAT(e->what(), StartsWith("cfg.yaml:10: adapters.claude.egress.allow_hosts: "));
    }
}

TEST(AnAllowedHostListedTwice, IsRefused)
{
    EXPECT_CONFIG_ERROR(kGatewayAdapter + "    egress:\n      allow_hosts:\n        - api.openai.com\n"
                                          "        - api.openai.com\n",
                        12, "adapters.claude.egress.allow_hosts", "listed twice");
}

TEST(AnAllowHostsValueThatIsNotAList, IsRefused)
{
    EXPECT_CONFIG_ERROR(kGatewayAdapter + "    egress:\n      allow_hosts: api.openai.com\n", 10,
                        "adapters.claude.egress.allow_hosts", "expected a list");
}

TEST(AProvidersValueThatIsNotAList, IsRefused)
{
    EXPECT_CONFIG_ERROR(kGatewayAdapter + "    egress:\n      allow_hosts: [h.example]\n"
                                          "      providers:\n        host: h.example\n",
                        12, kProviders, "expected a list");
}

TEST(AProviderHost, MustBeOnTheAllowList)
{
    EXPECT_CONFIG_ERROR(kGatewayAdapter + "    egress:\n"
                                          "      allow_hosts: [api.openai.com]\n"
                                          "      providers:\n"
                                          "        - host: api.anthropic.com\n"
                                          "          credential: k\n"
                                          "          key_env: A_KEY\n"
                                          "          base_url_env: A_URL\n",
                        12, std::string(kProviders) + ".host", "is not in adapters.claude.egress.allow_hosts");
}

TEST(AProviderWithoutItsRequiredKeys, IsRefused)
{
    const auto base = kGatewayAdapter + "    egress:\n      allow_hosts: [h.example]\n      providers:\n";
    EXPECT_CONFIG_ERROR(base + "        - host: h.example\n          key_env: K\n          base_url_env: U\n", 12,
                        std::string(kProviders) + ".credential", "missing required key");
    EXPECT_CONFIG_ERROR(base + "        - host: h.example\n          credential: c\n          base_url_env: U\n", 12,
                        std::string(kProviders) + ".key_env", "missing required key");
}

TEST(ACredentialName, IsLimitedToTheCharactersOfSystemdCredentials)
{
    auto yaml = kOneProvider;
    yaml.replace(yaml.find("anthropic-key"), 13, "../etc/shadow");
    EXPECT_CONFIG_ERROR(yaml, 13, std::string(kProviders) + ".credential", "[A-Za-z0-9_.-]");
}

TEST(AHeaderOrScheme, MustBeAnHttpToken)
{
    EXPECT_CONFIG_ERROR(kOneProvider + "          header: \"X-Key: injected\"\n", 16,
                        std::string(kProviders) + ".header", "HTTP header name");
    EXPECT_CONFIG_ERROR(kOneProvider + "          scheme: \"Bearer x\"\n", 16, std::string(kProviders) + ".scheme",
                        "authentication scheme");
}

TEST(ABasePath, IsEmptyOrAPlainAbsolutePath)
{
    for (const auto* path : {"v1", "/v1?x=1", "/../other", "//evil", "/v1/.."}) {
        SCOPED_TRACE(path);
        EXPECT_CONFIG_ERROR(kOneProvider + "          base_path: '" + path + "'\n", 16,
                            std::string(kProviders) + ".base_path", "expected empty or a path");
    }
}

TEST(AKeyOrBaseUrlVariable, MustBeAValidNameNotForbiddenAndNotComputed)
{
    auto with_key_env = [](const std::string& name) {
        auto yaml = kOneProvider;
        yaml.replace(yaml.find("ANTHROPIC_API_KEY"), 17, name);
        return yaml;
    };
    EXPECT_CONFIG_ERROR(with_key_env("1KEY"), 14, std::string(kProviders) + ".key_env", "environment variable name");
    EXPECT_CONFIG_ERROR(with_key_env("LD_PRELOAD"), 14, std::string(kProviders) + ".key_env", "forbidden");
    EXPECT_CONFIG_ERROR(with_key_env("HTTPS_PROXY"), 14, std::string(kProviders) + ".key_env", "proxy variable");
    EXPECT_CONFIG_ERROR(with_key_env("HOME"), 14, std::string(kProviders) + ".key_env", "computed");
    EXPECT_CONFIG_ERROR(with_key_env("ANTHROPIC_BASE_URL"), 15, std::string(kProviders) + ".base_url_env",
                        "set by another provider entry");
}

TEST(AKeyVariable, MayNotAlsoBeACredentialTheWorkerPasses)
{
    // The real key would otherwise reach the session beside the placeholder.
    EXPECT_CONFIG_ERROR(kOneProvider + "    credential_env: [ANTHROPIC_API_KEY]\n", 14,
                        std::string(kProviders) + ".key_env", "also in credential_env");
}

TEST(AKeyVariable, MayNotBeAMasterSecretOrTheMcpToken)
{
    auto with_sandbox_key = [](const std::string& line) {
        auto yaml = kOneProvider;
        const std::string grants = "  read_only_paths: [/usr]\n";
        yaml.replace(yaml.find(grants), grants.size(), grants + line); // key_env moves to line 15
        return yaml;
    };
    EXPECT_CONFIG_ERROR(with_sandbox_key("  forbidden_env: [ANTHROPIC_API_KEY]\n"), 15,
                        std::string(kProviders) + ".key_env", "sandbox.forbidden_env");
    EXPECT_CONFIG_ERROR(with_sandbox_key("  mcp_token_env: ANTHROPIC_BASE_URL\n"), 16,
                        std::string(kProviders) + ".base_url_env", "sandbox.mcp_token_env");
}

TEST(TheGatewaySection, HasDocumentedDefaults)
{
    const auto c = parse(nr::test::minimal_config());
    EXPECT_EQ(c.gateway.port, 8080U);
    EXPECT_EQ(c.gateway.max_header_bytes, 16ULL << 10U);
    EXPECT_EQ(c.gateway.max_request_bytes, 4ULL << 20U);
    EXPECT_EQ(c.gateway.max_response_bytes, 64ULL << 20U);
    EXPECT_EQ(c.gateway.control_socket, "/run/native-runtime-gateway/control");
    EXPECT_EQ(c.gateway.max_connections_per_session, 128U);
    EXPECT_EQ(c.gateway.max_tunnels_per_session, 32U);
    EXPECT_EQ(c.gateway.max_buffered_bytes_per_session, 8ULL << 20U);
    EXPECT_EQ(c.gateway.header_timeout_sec, 20U);
    EXPECT_EQ(c.gateway.idle_timeout_sec, 120U);
}

TEST(TheGatewaySection, IsRead)
{
    const auto c = parse("gateway:\n"
                         "  port: 9000\n"
                         "  max_header_bytes: 32K\n"
                         "  max_request_bytes: 8M\n"
                         "  max_response_bytes: 1G\n"
                         "  control_socket: /run/test-gateway/control\n"
                         "  max_connections_per_session: 64\n"
                         "  max_tunnels_per_session: 16\n"
                         "  max_buffered_bytes_per_session: 2M\n"
                         "  header_timeout_sec: 5\n"
                         "  idle_timeout_sec: 600\n" +
                         nr::test::minimal_config());
    EXPECT_EQ(c.gateway, (GatewaySettings{9000, 32ULL << 10U, 8ULL << 20U, 1ULL << 30U, "/run/test-gateway/control",
                                          RequestBudgetSettings{}, 64, 16, 2ULL << 20U, 5, 600}));
}

TEST(TheRequestBudget, IsAThousandRequestsPerOwnerAnHourByDefault)
{
    const auto c = parse(kGatewayAdapter);
    EXPECT_EQ(c.gateway.request_budget, (RequestBudgetSettings{3600, 1000, {}}));
    EXPECT_EQ(owner_request_budget(c.gateway.request_budget, "alice"), 1000U);
}

TEST(TheRequestBudget, KeepsTheDefaultPerOwnerWhenOnlyOtherKeysAreSet)
{
    const auto c = parse("gateway:\n"
                         "  request_budget:\n"
                         "    window_sec: 60\n"
                         "    owners:\n"
                         "      alice: 5\n" +
                         kGatewayAdapter);
    EXPECT_EQ(c.gateway.request_budget, (RequestBudgetSettings{60, 1000, {{"alice", 5}}}));
    EXPECT_EQ(owner_request_budget(c.gateway.request_budget, "bob"), 1000U);
}

TEST(TheRequestBudget, IsReadWithADefaultAndPerOwnerCounts)
{
    const auto c = parse("gateway:\n"
                         "  request_budget:\n"
                         "    window_sec: 600\n"
                         "    per_owner: 1000\n"
                         "    owners:\n"
                         "      alice: 50\n"
                         "      bob-2: 100000\n" +
                         kGatewayAdapter);
    EXPECT_EQ(c.gateway.request_budget, (RequestBudgetSettings{600, 1000, {{"alice", 50}, {"bob-2", 100000}}}));
}

TEST(TheRequestBudget, IsTurnedOffByAPerOwnerOfNoneOrZero)
{
    for (const auto* off : {"none", "0", "'none'"}) {
        SCOPED_TRACE(off);
        const auto c =
            parse("gateway:\n  request_budget:\n    per_owner: " + std::string(off) + "\n" + kGatewayAdapter);
        EXPECT_EQ(c.gateway.request_budget.per_owner, 0U);
        EXPECT_EQ(owner_request_budget(c.gateway.request_budget, "alice"), 0U);
    }
}

TEST(TheRequestBudget, IsTurnedOffForAnOwnerListedAsNoneWhateverPerOwnerSays)
{
    const auto c = parse("gateway:\n"
                         "  request_budget:\n"
                         "    per_owner: 10\n"
                         "    owners:\n"
                         "      alice: none\n"
                         "      carol: 0\n"
                         "      budgeted: 2\n" +
                         kGatewayAdapter);
    const auto& budget = c.gateway.request_budget;
    EXPECT_EQ(owner_request_budget(budget, "alice"), 0U);
    EXPECT_EQ(owner_request_budget(budget, "carol"), 0U);
    EXPECT_EQ(owner_request_budget(budget, "budgeted"), 2U);
    EXPECT_EQ(owner_request_budget(budget, "bob"), 10U);
}

TEST(TheRequestBudget, ExemptsAnOwnerListedAsNoneFromTheDefaultBudget)
{
    const auto c = parse("gateway:\n  request_budget:\n    owners: {alice: none, budgeted: 2}\n" + kGatewayAdapter);
    const auto& budget = c.gateway.request_budget;
    EXPECT_EQ(owner_request_budget(budget, "alice"), 0U);
    EXPECT_EQ(owner_request_budget(budget, "budgeted"), 2U);
    EXPECT_EQ(owner_request_budget(budget, "bob"), kDefaultRequestBudget);
}

TEST(TheRequestBudget, RefusesOtherSpellingsOfNone)
{
    const std::string head = "gateway:\n  request_budget:\n";
    for (const auto* spelling : {"None", "NONE", "off", "no", "-1", "1e3"}) {
        SCOPED_TRACE(spelling);
        EXPECT_CONFIG_ERROR(head + "    per_owner: " + spelling + "\n" + kGatewayAdapter, 3,
                            "gateway.request_budget.per_owner", "or none for no budget");
        EXPECT_CONFIG_ERROR(head + "    owners:\n      alice: " + spelling + "\n" + kGatewayAdapter, 4,
                            "gateway.request_budget.owners.alice", "or none for no budget");
    }
    for (const auto* empty : {"~", "null", ""}) {
        SCOPED_TRACE(empty);
        const auto e = nr::test::error_from(
            [&] { (void)parse(head + "    per_owner: " + std::string(empty) + "\n" + kGatewayAdapter); });
        ASSERT_TRUE(e.has_value());
        EXPECT_EQ(e->kind(), ErrorKind::ConfigInvalid);
    }
}

TEST(TheRequestBudget, RefusesOversizedValuesZeroWindowsAndBadOwnerIds)
{
    const auto cfg = kGatewayAdapter;
    const std::string head = "gateway:\n  request_budget:\n";
    EXPECT_NO_THROW((void)parse(head + "    per_owner: 100000\n" + cfg));
    EXPECT_CONFIG_ERROR(head + "    per_owner: 100001\n" + cfg, 3, "gateway.request_budget.per_owner", "100000");
    EXPECT_CONFIG_ERROR(head + "    owners:\n      alice: 100001\n" + cfg, 4, "gateway.request_budget.owners.alice",
                        "100000");
    EXPECT_CONFIG_ERROR(head + "    window_sec: 0\n" + cfg, 3, "gateway.request_budget.window_sec", "1 to 86400");
    EXPECT_CONFIG_ERROR(head + "    window_sec: 86401\n" + cfg, 3, "gateway.request_budget.window_sec", "86400");
    EXPECT_CONFIG_ERROR(head + "    owners:\n      Alice!: 5\n" + cfg, 4, "gateway.request_budget.owners.Alice!", "");
    EXPECT_CONFIG_ERROR(head + "    owners: [alice]\n" + cfg, 3, "gateway.request_budget.owners",
                        "mapping of owner ids");
    EXPECT_CONFIG_ERROR(head + "    per_user: 5\n" + cfg, 3, "gateway.request_budget.per_user", "unknown key");
}

TEST(TheGatewaySection, RefusesBadValues)
{
    const auto cfg = nr::test::minimal_config();
    EXPECT_CONFIG_ERROR("gateway:\n  port: 0\n" + cfg, 2, "gateway.port", "1 to 65535");
    EXPECT_CONFIG_ERROR("gateway:\n  port: 65536\n" + cfg, 2, "gateway.port", "65535");
    EXPECT_CONFIG_ERROR("gateway:\n  max_request_bytes: 0\n" + cfg, 2, "gateway.max_request_bytes",
                        "greater than zero");
    EXPECT_CONFIG_ERROR("gateway:\n  max_response_bytes: lots\n" + cfg, 2, "gateway.max_response_bytes", "512M");
    EXPECT_CONFIG_ERROR("gateway:\n  control_socket: run/gw\n" + cfg, 2, "gateway.control_socket", "");
    EXPECT_CONFIG_ERROR("gateway:\n  budget: 5\n" + cfg, 2, "gateway.budget", "unknown key");
    EXPECT_CONFIG_ERROR("gateway:\n  max_connections: 5\n" + cfg, 2, "gateway.max_connections", "unknown key");
}

namespace {

// One `gateway:` key set to `value`, at line 2.
std::string with_gateway_key(const std::string& key, const std::string& value)
{
    return "gateway:\n  " + key + ": " + value + "\n" + nr::test::minimal_config();
}

} // namespace

TEST(APerSessionCountOrTimeout, IsAcceptedAtItsBoundsAndRefusedJustOutside)
{
    struct Bound {
        const char* key;
        std::uint64_t max;
        std::uint64_t GatewaySettings::*field;
    };
    for (const auto& [key, max, field] : {
             Bound{"max_connections_per_session", 4096, &GatewaySettings::max_connections_per_session},
             Bound{"header_timeout_sec", 300, &GatewaySettings::header_timeout_sec},
             Bound{"idle_timeout_sec", 86400, &GatewaySettings::idle_timeout_sec},
         }) {
        SCOPED_TRACE(key);
        // One tunnel, so that a single connection is a valid setting.
        const auto with = [key = std::string(key)](const std::string& value) {
            return "gateway:\n  " + key + ": " + value + "\n  max_tunnels_per_session: 1\n" +
                   nr::test::minimal_config();
        };
        EXPECT_EQ(parse(with("1")).gateway.*field, 1U);
        EXPECT_EQ(parse(with(std::to_string(max))).gateway.*field, max);
        EXPECT_CONFIG_ERROR(with("0"), 2, "gateway." + std::string(key), "1 to " + std::to_string(max));
        EXPECT_CONFIG_ERROR(with(std::to_string(max + 1)), 2, "gateway." + std::string(key), std::to_string(max));
        EXPECT_CONFIG_ERROR(with("-1"), 2, "gateway." + std::string(key), "unsigned integer");
    }
}

TEST(TheTunnelLimit, IsAcceptedAtItsBoundsAndRefusedJustOutside)
{
    const auto with_tunnels = [](const std::string& tunnels) {
        return "gateway:\n  max_connections_per_session: 4096\n  max_tunnels_per_session: " + tunnels + "\n" +
               nr::test::minimal_config();
    };
    EXPECT_EQ(parse(with_tunnels("1")).gateway.max_tunnels_per_session, 1U);
    EXPECT_EQ(parse(with_tunnels("1024")).gateway.max_tunnels_per_session, 1024U);
    EXPECT_CONFIG_ERROR(with_tunnels("0"), 3, "gateway.max_tunnels_per_session", "1 to 1024");
    EXPECT_CONFIG_ERROR(with_tunnels("1025"), 3, "gateway.max_tunnels_per_session", "1024");
}

TEST(TheTunnelLimit, MayNotExceedTheConnectionLimit)
{
    const auto both = [](const std::string& connections, const std::string& tunnels) {
        return "gateway:\n  max_tunnels_per_session: " + tunnels + "\n  max_connections_per_session: " + connections +
               "\n" + nr::test::minimal_config();
    };
    EXPECT_EQ(parse(both("10", "10")).gateway.max_tunnels_per_session, 10U);
    EXPECT_CONFIG_ERROR(both("10", "11"), 2, "gateway.max_tunnels_per_session",
                        "max_tunnels_per_session (11) must be at most max_connections_per_session (10)");
    // Only the connections are set, below the default 32 tunnels: that key
    // is the one to change.
    EXPECT_CONFIG_ERROR(with_gateway_key("max_connections_per_session", "31"), 2, "gateway.max_connections_per_session",
                        "max_tunnels_per_session (32) must be at most max_connections_per_session (31)");
    EXPECT_EQ(parse(with_gateway_key("max_connections_per_session", "32")).gateway.max_connections_per_session, 32U);
}

TEST(TheBufferedBytesLimit, IsASizeFromAHeaderAndSixtyFourKibibytesToOneGibibyte)
{
    const std::string key = "max_buffered_bytes_per_session";
    EXPECT_EQ(parse(with_gateway_key(key, "4M")).gateway.max_buffered_bytes_per_session, 4ULL << 20U);
    EXPECT_EQ(parse(with_gateway_key(key, "1G")).gateway.max_buffered_bytes_per_session, 1ULL << 30U);
    EXPECT_EQ(parse(with_gateway_key(key, "81920")).gateway.max_buffered_bytes_per_session, 80ULL << 10U);
    EXPECT_CONFIG_ERROR(with_gateway_key(key, std::to_string((1ULL << 30U) + 1)), 2, "gateway." + key, "at most 1G");
    EXPECT_CONFIG_ERROR(with_gateway_key(key, "81919"), 2, "gateway." + key,
                        "(81919) must be at least max_header_bytes (16384) + 64K");
    EXPECT_CONFIG_ERROR(with_gateway_key(key, "0"), 2, "gateway." + key, "at least max_header_bytes");
    EXPECT_CONFIG_ERROR(with_gateway_key(key, "lots"), 2, "gateway." + key, "512M");
}

TEST(TheBufferedBytesLimit, MustHoldTheLargestHeaderAndSixtyFourKibibytesMore)
{
    const auto both = [](const std::string& header, const std::string& buffered) {
        return "gateway:\n  max_buffered_bytes_per_session: " + buffered + "\n  max_header_bytes: " + header + "\n" +
               nr::test::minimal_config();
    };
    EXPECT_EQ(parse(both("1M", "1088K")).gateway.max_buffered_bytes_per_session, 1088ULL << 10U);
    EXPECT_CONFIG_ERROR(both("1M", "1087K"), 2, "gateway.max_buffered_bytes_per_session",
                        "at least max_header_bytes (1048576) + 64K");
    // Only the header is set, too large for the default 8M: that key is
    // the one named.
    EXPECT_CONFIG_ERROR(with_gateway_key("max_header_bytes", "8M"), 2, "gateway.max_header_bytes",
                        "max_buffered_bytes_per_session (8388608) must be at least max_header_bytes (8388608)");
    EXPECT_CONFIG_ERROR(with_gateway_key("max_header_bytes", "18446744073709551615"), 2, "gateway.max_header_bytes",
                        "at least max_header_bytes");
}
