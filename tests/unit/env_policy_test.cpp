// SPDX-License-Identifier: Apache-2.0
#include "core/plan/env_policy.h"

#include "config_fixtures.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

using namespace nr::core;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

using nr::test::kHome;

Config config()
{
    auto c = nr::test::two_adapter_config();
    c.adapters.at("claude").credential_env = {"ANTHROPIC_API_KEY", "LD_PRELOAD", "HOME"};
    c.adapters.at("codex").credential_env = {"OPENAI_API_KEY"};
    return c;
}

std::vector<std::string> build(const std::map<std::string, std::string>& requested,
                               const std::string& adapter = "claude")
{
    const auto c = config();
    return build_session_environment(c, c.adapters.at(adapter), requested, "alice", kHome);
}

void expect_env_refused(const std::map<std::string, std::string>& requested, const std::string& fragment)
{
    const auto e = nr::test::error_from([&] { (void)build(requested); });
    ASSERT_TRUE(e.has_value()) << "accepted " << requested.begin()->first;
    EXPECT_EQ(e->kind(), ErrorKind::InvalidEnvironment) << e->what();
    EXPECT_THAT(e->what(), HasSubstr(fragment));
}

} // namespace

TEST(AnEmptyRequest, YieldsOnlyTheComputedEnvironmentSorted)
{
    EXPECT_THAT(build({}),
                ElementsAre("HOME=/var/lib/nr/native-runtime/alice/home", "LOGNAME=alice", "PATH=/usr/bin:/bin",
                            "TMPDIR=/tmp", "USER=alice", "XDG_CACHE_HOME=/var/lib/nr/native-runtime/alice/home/.cache",
                            "XDG_CONFIG_HOME=/var/lib/nr/native-runtime/alice/home/.config",
                            "XDG_DATA_HOME=/var/lib/nr/native-runtime/alice/home/.local/share",
                            "XDG_STATE_HOME=/var/lib/nr/native-runtime/alice/home/.local/state"));
}

TEST(TheSessionEnvironment, IsSortedAndContainsAdmittedVariables)
{
    const auto env = build({{"TERM", "xterm-256color"}, {"ANTHROPIC_API_KEY", "sk-test"}, {"LANG", "C.UTF-8"}});
    EXPECT_TRUE(std::is_sorted(env.begin(), env.end()));
    EXPECT_THAT(env, Contains("ANTHROPIC_API_KEY=sk-test"));
    EXPECT_THAT(env, Contains("TERM=xterm-256color"));
    EXPECT_THAT(env, Contains("LANG=C.UTF-8"));
    EXPECT_THAT(env, Contains("HOME=/var/lib/nr/native-runtime/alice/home"));
    EXPECT_THAT(env, Contains("PATH=/usr/bin:/bin"));
    EXPECT_THAT(env, Contains("TMPDIR=/tmp"));
    EXPECT_THAT(env, Contains("USER=alice"));
    EXPECT_EQ(env.size(), 12U);
}

TEST(OperationalVariables, AreAdmittedForAnyAdapter)
{
    for (const char* name : {"LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TERM", "TZ", "COLORTERM", "NO_COLOR"}) {
        EXPECT_THAT(build({{name, "x"}}, "codex"), Contains(std::string(name) + "=x")) << name;
    }
}

TEST(AnAdaptersOwnCredential, IsAdmitted)
{
    EXPECT_THAT(build({{"OPENAI_API_KEY", "sk-o"}}, "codex"), Contains("OPENAI_API_KEY=sk-o"));
}

TEST(ACredentialOfAnotherAdapter, IsRefused)
{
    expect_env_refused({{"OPENAI_API_KEY", "sk-o"}}, "not allowed for adapter claude");
}

TEST(AnArbitraryVariable, IsRefused)
{
    expect_env_refused({{"EDITOR", "vim"}}, "EDITOR");
    expect_env_refused({{"lang", "C"}}, "lang"); // names are case-sensitive
}

TEST(ForbiddenVariables, AreRefusedWithATypedError)
{
    for (const char* name :
         {"LD_PRELOAD", "LD_LIBRARY_PATH", "NODE_OPTIONS", "DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS",
          "https_proxy", "HTTPS_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy", "PYTHONPATH",
          "BASH_ENV", "SSH_AUTH_SOCK", "PERL5OPT", "RUBYOPT", "GCONV_PATH"}) {
        SCOPED_TRACE(name);
        expect_env_refused({{name, "x"}}, std::string(name) + " may not be set");
    }
}

TEST(AForbiddenVariable, IsRefusedEvenWhenTheAdapterListsItAsACredential)
{
    expect_env_refused({{"LD_PRELOAD", "/tmp/x.so"}}, "LD_PRELOAD may not be set");
}

TEST(ComputedVariables, MayNotBeOverriddenByTheCaller)
{
    for (const char* name :
         {"PATH", "HOME", "TMPDIR", "USER", "LOGNAME", "SHELL", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "XDG_ANYTHING"}) {
        SCOPED_TRACE(name);
        expect_env_refused({{name, "/x"}}, std::string(name) + " may not be set");
    }
}

TEST(AComputedVariable, IsRefusedEvenWhenTheAdapterListsItAsACredential)
{
    expect_env_refused({{"HOME", "/root"}}, "HOME may not be set");
}

TEST(AValueWithNulCrOrLf, IsRefused)
{
    expect_env_refused({{"TERM", "xterm\nLD_PRELOAD=/x"}}, "NUL, CR or LF");
    expect_env_refused({{"TERM", "xterm\r"}}, "NUL, CR or LF");
    expect_env_refused({{"TERM", std::string("xt\0erm", 6)}}, "NUL, CR or LF");
}

TEST(AValueWithOtherPunctuation, IsAdmittedVerbatim)
{
    EXPECT_THAT(build({{"TERM", "a=b; $(x) 'q' \t"}}), Contains("TERM=a=b; $(x) 'q' \t"));
}

TEST(AValueOf32KiB, IsAdmittedButOneByteMoreIsRefused)
{
    EXPECT_THAT(build({{"TERM", std::string(32 * 1024, 'x')}}), Contains("TERM=" + std::string(32 * 1024, 'x')));
    expect_env_refused({{"TERM", std::string(32 * 1024 + 1, 'x')}}, "longer than 32 KiB");
}

TEST(AnInvalidVariableName, IsRefused)
{
    for (const std::string& name :
         {std::string(""), std::string("1TERM"), std::string("TE RM"), std::string("TERM=x"), std::string("TE-RM"),
          std::string("T\nERM"), std::string("T\0M", 3), std::string(129, 'A')}) {
        SCOPED_TRACE(name);
        expect_env_refused({{name, "x"}}, "name is not valid");
    }
}

TEST(AValidCredentialName, MayContainDigitsAndUnderscoresAfterTheFirstCharacter)
{
    Config c = config();
    c.adapters.at("codex").credential_env = {"_K1", std::string(128, 'K')};
    const auto env = build_session_environment(c, c.adapters.at("codex"), {{"_K1", "a"}, {std::string(128, 'K'), "b"}},
                                               "alice", kHome);
    EXPECT_THAT(env, Contains("_K1=a"));
    EXPECT_THAT(env, Contains(std::string(128, 'K') + "=b"));
}

TEST(SixtyFourVariables, AreAcceptedButSixtyFiveAreRefused)
{
    Config c = config();
    auto& codex = c.adapters.at("codex");
    std::map<std::string, std::string> requested;
    for (int i = 0; i < 65; ++i) {
        const auto name = "K" + std::to_string(i);
        codex.credential_env.push_back(name);
        requested[name] = "v";
    }
    auto sixty_four = requested;
    sixty_four.erase("K0");
    EXPECT_EQ(build_session_environment(c, codex, sixty_four, "alice", kHome).size(), 64U + 9U);
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidEnvironment, build_session_environment(c, codex, requested, "alice", kHome));
    EXPECT_THAT(e->what(), HasSubstr("more than 64"));
}

TEST(IsForbiddenEnvName, CoversLoaderAndBusPrefixesButNotLookalikes)
{
    EXPECT_TRUE(is_forbidden_env_name("LD_AUDIT"));
    EXPECT_TRUE(is_forbidden_env_name("DBUS_STARTER_ADDRESS"));
    EXPECT_FALSE(is_forbidden_env_name("OLD_PRELOAD"));
    EXPECT_FALSE(is_forbidden_env_name("ANTHROPIC_API_KEY"));
    EXPECT_FALSE(is_forbidden_env_name("TERM"));
}

TEST(IsOperationalEnvName, CoversLocaleAndTerminalOnly)
{
    EXPECT_TRUE(is_operational_env_name("LC_MESSAGES"));
    EXPECT_TRUE(is_operational_env_name("TZ"));
    EXPECT_FALSE(is_operational_env_name("LCX"));
    EXPECT_FALSE(is_operational_env_name("TERMINFO"));
    EXPECT_FALSE(is_operational_env_name("PATH"));
}

namespace {

std::vector<std::string> build_with(const Config& c, const std::map<std::string, std::string>& requested,
                                    const std::string& adapter = "claude")
{
    return build_session_environment(c, c.adapters.at(adapter), requested, "alice", kHome);
}

} // namespace

TEST(TheMcpSessionToken, IsAdmittedForEveryAdapterOnceConfigured)
{
    auto c = config();
    NR_EXPECT_REFUSED(before, ErrorKind::InvalidEnvironment, build_with(c, {{"METIS_MCP_TOKEN", "t"}}, "codex"));
    c.mcp_token_env = "METIS_MCP_TOKEN";
    EXPECT_THAT(build_with(c, {{"METIS_MCP_TOKEN", "t"}}, "codex"), Contains("METIS_MCP_TOKEN=t"));
    EXPECT_THAT(build_with(c, {{"METIS_MCP_TOKEN", "t"}}, "claude"), Contains("METIS_MCP_TOKEN=t"));
}

TEST(AConfiguredMasterSecretName, IsRefusedEvenForAnAdapterThatListsIt)
{
    auto c = config();
    EXPECT_THAT(build_with(c, {{"ANTHROPIC_API_KEY", "k"}}), Contains("ANTHROPIC_API_KEY=k")) << "control";
    c.forbidden_env = {"ANTHROPIC_API_KEY"};
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidEnvironment, build_with(c, {{"ANTHROPIC_API_KEY", "k"}}));
    EXPECT_THAT(e->what(), HasSubstr("may not be set"));
}

TEST(ProxyVariables, AreRefusedUnlessTheConfigAllowsThem)
{
    auto c = config();
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidEnvironment, build_with(c, {{"https_proxy", "http://proxy:3128"}}));
    c.proxy_env = true;
    EXPECT_THAT(build_with(c, {{"https_proxy", "http://proxy:3128"}, {"NO_PROXY", "localhost"}}),
                Contains("https_proxy=http://proxy:3128"));
    NR_EXPECT_REFUSED(still, ErrorKind::InvalidEnvironment, build_with(c, {{"LD_PRELOAD", "/x.so"}}));
}

TEST(TlsWeakeningVariables, AreRefusedEvenForAnAdapterThatListsThemAndWithProxiesAllowed)
{
    const std::vector<std::string> names{"NODE_TLS_REJECT_UNAUTHORIZED",
                                         "NODE_EXTRA_CA_CERTS",
                                         "SSL_CERT_FILE",
                                         "SSL_CERT_DIR",
                                         "REQUESTS_CA_BUNDLE",
                                         "CURL_CA_BUNDLE",
                                         "GIT_SSL_NO_VERIFY",
                                         "GIT_SSL_CAINFO",
                                         "GIT_SSL_CAPATH",
                                         "PIP_CERT",
                                         "OPENSSL_CONF",
                                         "SSLKEYLOGFILE",
                                         "npm_config_strict_ssl",
                                         "GIT_CONFIG_COUNT"};
    auto c = config();
    c.proxy_env = true;
    auto& claude = c.adapters.at("claude");
    claude.credential_env.insert(claude.credential_env.end(), names.begin(), names.end());
    claude.credential_env.emplace_back("NR_CONTROL_NAME");
    EXPECT_THAT(build_with(c, {{"NR_CONTROL_NAME", "1"}}), Contains("NR_CONTROL_NAME=1")) << "control";
    for (const auto& name : names) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(is_tls_weakening_env_name(name));
        NR_EXPECT_REFUSED(e, ErrorKind::InvalidEnvironment, build_with(c, {{name, "0"}}));
        EXPECT_THAT(e->what(), HasSubstr(name + " may not be set"));
    }
}

TEST(IsTlsWeakeningEnvName, LeavesProxiesAndCredentialsToTheirOwnRules)
{
    EXPECT_FALSE(is_tls_weakening_env_name("HTTPS_PROXY"));
    EXPECT_FALSE(is_tls_weakening_env_name("ANTHROPIC_API_KEY"));
    EXPECT_FALSE(is_tls_weakening_env_name("SSL_CERT")); // not a name any client reads
}
