// SPDX-License-Identifier: Apache-2.0
#include "core/config/config.h"

#include "config_error.h"
#include "config_fixtures.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

using namespace nr::core;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

namespace {

using nr::test::parse;

// Seven lines, the last inside adapters.claude (see config_fixtures.h).
using nr::test::kMinimal;

} // namespace

// ---------------------------------------------------------------- accepted

TEST(AMinimalConfig, IsAcceptedWithDocumentedDefaults)
{
    const auto c = parse(kMinimal);
    EXPECT_EQ(c.source, "cfg.yaml");
    EXPECT_EQ(c.data_dir, "/var/lib/nr");
    EXPECT_EQ(c.bwrap_path, "/usr/bin/bwrap");
    EXPECT_EQ(c.idle_timeout_sec, std::nullopt);
    EXPECT_EQ(c.default_path, "/usr/local/bin:/usr/bin:/bin");
    EXPECT_THAT(c.callers.users, IsEmpty());
    EXPECT_THAT(c.callers.groups, IsEmpty());
    EXPECT_THAT(c.callers.run_as_users, IsEmpty());
    EXPECT_THAT(c.read_only_paths, ElementsAre("/usr"));
    EXPECT_THAT(c.hidden_paths, IsEmpty());
    EXPECT_EQ(c.limits.memory_max_bytes, 2ULL << 30U);
    EXPECT_EQ(c.limits.tasks_max, 512U);
    EXPECT_EQ(c.limits.cpu_quota_percent, 100U);
    EXPECT_EQ(c.limits.runtime_max_sec, 3600U);
    EXPECT_EQ(c.limits.tmp_size_bytes, 256ULL << 20U);
    ASSERT_EQ(c.adapters.size(), 1U);
    const auto& claude = c.adapters.at("claude");
    EXPECT_EQ(claude.name, "claude");
    EXPECT_EQ(claude.executable, "/usr/bin/claude");
    EXPECT_THAT(claude.read_only_paths, IsEmpty());
    EXPECT_THAT(claude.credential_env, IsEmpty());
    EXPECT_EQ(claude.network, NetworkMode::Host);
    EXPECT_FALSE(claude.nested_userns);
}

TEST(AFullConfig, SetsEveryField)
{
    const auto c = parse(R"(# operator config
data_dir: /var/lib/nr
bwrap: /opt/bwrap/bin/bwrap
idle_timeout_sec: 120
path: /usr/bin:/bin
callers:
  users: [alice, bob]
  groups: [agents]
  run_as_users: [svc]
sandbox:
  read_only_paths: [/usr, /etc/ssl]
  hidden_paths:
    - /home
    - /root
limits:
  memory_max: 4G
  tasks_max: 1024
  cpu_quota_percent: 200
  runtime_max_sec: 7200
  tmp_size: 512M
adapters:
  claude:
    executable: /usr/bin/claude
    read_only_paths: [/opt/claude]
    credential_env: [ANTHROPIC_API_KEY]
    network: offline
    nested_userns: true
  codex:
    executable: /usr/bin/codex
)");
    EXPECT_EQ(c.bwrap_path, "/opt/bwrap/bin/bwrap");
    EXPECT_EQ(c.idle_timeout_sec, 120U);
    EXPECT_EQ(c.default_path, "/usr/bin:/bin");
    EXPECT_THAT(c.callers.users, ElementsAre("alice", "bob"));
    EXPECT_THAT(c.callers.groups, ElementsAre("agents"));
    EXPECT_THAT(c.callers.run_as_users, ElementsAre("svc"));
    EXPECT_THAT(c.read_only_paths, ElementsAre("/usr", "/etc/ssl"));
    EXPECT_THAT(c.hidden_paths, ElementsAre("/home", "/root"));
    EXPECT_EQ(c.limits.memory_max_bytes, 4ULL << 30U);
    EXPECT_EQ(c.limits.tasks_max, 1024U);
    EXPECT_EQ(c.limits.cpu_quota_percent, 200U);
    EXPECT_EQ(c.limits.runtime_max_sec, 7200U);
    EXPECT_EQ(c.limits.tmp_size_bytes, 512ULL << 20U);
    ASSERT_EQ(c.adapters.size(), 2U);
    const auto& claude = c.adapters.at("claude");
    EXPECT_THAT(claude.read_only_paths, ElementsAre("/opt/claude"));
    EXPECT_THAT(claude.credential_env, ElementsAre("ANTHROPIC_API_KEY"));
    EXPECT_EQ(claude.network, NetworkMode::Offline);
    EXPECT_TRUE(claude.nested_userns);
    const auto& codex = c.adapters.at("codex");
    EXPECT_EQ(codex.name, "codex");
    EXPECT_EQ(codex.executable, "/usr/bin/codex");
    EXPECT_EQ(codex.network, NetworkMode::Host);
}

TEST(AConfigWithALeadingDocumentMarker, IsAccepted)
{
    EXPECT_EQ(parse("---\n" + kMinimal).data_dir, "/var/lib/nr");
}

// ------------------------------------------------------------ unknown keys

TEST(AConfigWithAnUnknownKey, IsRejectedNamingFileLineAndKey)
{
    EXPECT_CONFIG_ERROR(kMinimal + "colour: red\n", 8, "colour", "unknown key");
}

TEST(AConfigWithAnUnknownKeyUnderCallers, IsRejectedNamingFileLineAndKey)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\n"
                        "callers:\n"
                        "  users: [alice]\n"
                        "  admins: [mallory]\n",
                        4, "callers.admins", "unknown key");
}

TEST(AConfigWithAnUnknownKeyUnderSandbox, IsRejectedNamingFileLineAndKey)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\n"
                        "callers: {}\n"
                        "sandbox:\n"
                        "  read_only_paths: [/usr]\n"
                        "  read_write_paths: [/]\n",
                        5, "sandbox.read_write_paths", "unknown key");
}

TEST(AConfigWithAnUnknownKeyUnderLimits, IsRejectedNamingFileLineAndKey)
{
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  memory_max: 1G\n  memory_high: 1G\n", 10, "limits.memory_high",
                        "unknown key");
}

TEST(AConfigWithAnUnknownKeyInAnAdapterProfile, IsRejectedNamingFileLineAndKey)
{
    EXPECT_CONFIG_ERROR(kMinimal + "    network_mode: host\n", 8, "adapters.claude.network_mode", "unknown key");
}

TEST(AConfigWithAMisspelledKey, IsRejectedEvenWhenOnlyTheCaseDiffers)
{
    EXPECT_CONFIG_ERROR(kMinimal + "Data_Dir: /srv\n", 8, "Data_Dir", "unknown key");
}

TEST(TheLineNumberOfAConfigError, CountsCommentsAndBlankLines)
{
    EXPECT_CONFIG_ERROR("# native-runtime\n"
                        "\n"
                        "# data\n"
                        "data_dir: /var/lib/nr\n"
                        "\n"
                        "callers:\n"
                        "  # who may call\n"
                        "  users: [alice]\n"
                        "\n"
                        "  uesrs: [bob]\n",
                        10, "callers.uesrs", "unknown key");
}

// ---------------------------------------------------- duplicate and odd keys

TEST(AConfigWithADuplicateTopLevelKey, IsRejectedInsteadOfSilentlyKeepingTheLastValue)
{
    EXPECT_CONFIG_ERROR(kMinimal + "data_dir: /srv/other\n", 8, "data_dir", "duplicate key");
}

TEST(AConfigWithADuplicateNestedKey, IsRejected)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\n"
                        "callers: {}\n"
                        "sandbox:\n"
                        "  hidden_paths: [/home]\n"
                        "  read_only_paths: [/usr]\n"
                        "  hidden_paths: []\n",
                        6, "sandbox.hidden_paths", "duplicate key");
}

TEST(AConfigWithADuplicateAdapterName, IsRejected)
{
    EXPECT_CONFIG_ERROR(kMinimal + "  claude:\n    executable: /usr/bin/other\n", 8, "adapters.claude",
                        "duplicate key");
}

TEST(AConfigWithANonStringKey, IsRejectedAsConfigInvalid)
{
    EXPECT_CONFIG_ERROR(kMinimal + "? [a, b]\n: c\n", 8, "<top>", "keys must be strings");
    EXPECT_CONFIG_ERROR(kMinimal + "  ? {x: y}\n  : {executable: /usr/bin/x}\n", 8, "adapters", "keys must be strings");
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers:\n  ? [users]\n  : [alice]\n", 3, "callers",
                        "keys must be strings");
}

TEST(AConfigWithASecondYamlDocument, IsRejectedAtTheDocumentMarkerInsteadOfIgnoringIt)
{
    EXPECT_CONFIG_ERROR(kMinimal + "---\nsandbox:\n  hidden_paths: [/home]\n", 8, "<top>", "single YAML document");
    EXPECT_CONFIG_ERROR(kMinimal + "---\n", 8, "<top>", "single YAML document");
}

TEST(AnInputOnWhichYamlCppReportsEndlessDocuments, IsRejectedInsteadOfHanging)
{
    // Found by tests/fuzz/config_fuzz.cpp: YAML::LoadAll never returns on it.
    EXPECT_CONFIG_ERROR(R"(,""""*""""""""""$""*"""""""$""*"""""""""""! er)", 1, "<top>", "single YAML document");
}

// --------------------------------------------------------- invalid structure

TEST(AnEmptyConfig, IsRejectedAsHavingNoSettings)
{
    EXPECT_CONFIG_ERROR("", 1, "<top>", "no settings (the file is empty or only comments)");
}

TEST(AConfigOfOnlyComments, IsRejectedAsHavingNoSettingsNotAsPermissive)
{
    // The packaged /etc/native-runtime/config.yaml is such a file.
    EXPECT_CONFIG_ERROR("# data_dir: /var/lib/app\n#callers:\n#  users: [worker]\n", 1, "<top>",
                        "complete it, starting from the commented example");
}

TEST(AConfigThatIsANull, IsRejectedAsHavingNoSettings)
{
    EXPECT_CONFIG_ERROR("~\n", 1, "<top>", "no settings");
}

TEST(AConfigThatIsAList, IsRejectedAsNotAMapping)
{
    EXPECT_CONFIG_ERROR("- data_dir: /var/lib/nr\n", 1, "<top>", "expected a mapping");
}

TEST(InvalidYaml, IsRejectedWithTheLineOfTheSyntaxError)
{
    EXPECT_CONFIG_ERROR("data_dir: /x\n\tcallers: {}\n", 2, "not valid YAML", "tab");
    EXPECT_CONFIG_ERROR("data_dir: /x\ncallers: {}\nsandbox: *nope\n", 3, "not valid YAML", "anchor");
    NR_EXPECT_REFUSED(e, ErrorKind::ConfigInvalid, parse("data_dir: [/x\n"));
    EXPECT_THAT(e->what(), StartsWith("cfg.yaml:"));
    EXPECT_THAT(e->what(), HasSubstr("not valid YAML"));
}

TEST(AConfigNamedBySource, NamesThatSourceInItsErrors)
{
    NR_EXPECT_REFUSED(e, ErrorKind::ConfigInvalid,
                      parse_config(kMinimal + "x: 1\n", "/etc/native-runtime/config.yaml"));
    EXPECT_THAT(e->what(), StartsWith("/etc/native-runtime/config.yaml:8: x: "));
}

// ----------------------------------------------------------------- types

TEST(AScalarGivenAsAList, IsRejectedAsWrongType)
{
    EXPECT_CONFIG_ERROR("data_dir: [/var/lib/nr]\n", 1, "data_dir", "expected a string");
}

TEST(AListGivenAsAScalar, IsRejectedAsWrongType)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers:\n  users: alice\n", 3, "callers.users", "expected a list");
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths: /usr\n", 4,
                        "sandbox.read_only_paths", "expected a list");
}

TEST(AListOfListsWhereStringsAreExpected, IsRejected)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers:\n  groups: [[wheel]]\n", 3, "callers.groups",
                        "expected a string");
}

TEST(AMappingGivenAsAList, IsRejectedAsWrongType)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: [alice]\n", 2, "callers", "expected a mapping");
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox: [/usr]\n", 3, "sandbox", "expected a mapping");
}

TEST(AdaptersGivenAsAList, IsRejected)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths: [/usr]\n"
                        "adapters:\n  - claude\n",
                        6, "adapters", "expected a mapping of adapter names");
}

TEST(AnAdapterProfileThatIsNotAMapping, IsRejected)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths: [/usr]\n"
                        "adapters:\n  claude: /usr/bin/claude\n",
                        6, "adapters.claude", "expected a mapping");
}

TEST(AnEmptyValue, IsRejectedAtTheLineOfItsKey)
{
    EXPECT_CONFIG_ERROR(kMinimal + "bwrap:\n", 8, "bwrap", "expected a value");
    EXPECT_CONFIG_ERROR(kMinimal + "bwrap: ~\n", 8, "bwrap", "expected a value");
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers:\nsandbox:\n  read_only_paths: [/usr]\n", 2, "callers",
                        "expected a value");
    EXPECT_CONFIG_ERROR(kMinimal + "  codex:\n", 8, "adapters.codex", "expected a value");
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  tasks_max:\n", 9, "limits.tasks_max", "expected a value");
}

TEST(AnEmptyListEntry, IsRejectedAsNotAString)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers:\n  users: [alice, ~]\n", 3, "callers.users",
                        "expected a string");
}

// ----------------------------------------------------------- missing keys

TEST(AConfigWithoutDataDir, IsRejected)
{
    EXPECT_CONFIG_ERROR("callers: {}\nsandbox:\n  read_only_paths: [/usr]\nadapters:\n  claude:\n"
                        "    executable: /usr/bin/claude\n",
                        1, "data_dir", "missing required key");
}

TEST(AConfigWithoutCallers, IsRejected)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\nsandbox:\n  read_only_paths: [/usr]\nadapters:\n  claude:\n"
                        "    executable: /usr/bin/claude\n",
                        1, "callers", "missing required key");
}

TEST(AConfigWithoutSandbox, IsRejected)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nadapters:\n  claude:\n"
                        "    executable: /usr/bin/claude\n",
                        1, "sandbox.read_only_paths", "missing required key");
}

TEST(AConfigWithoutReadOnlyPaths, IsRejected)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  hidden_paths: [/home]\nadapters:\n"
                        "  claude:\n    executable: /usr/bin/claude\n",
                        1, "sandbox.read_only_paths", "missing required key");
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths: []\nadapters:\n"
                        "  claude:\n    executable: /usr/bin/claude\n",
                        1, "sandbox.read_only_paths", "missing required key");
}

TEST(AConfigWithoutAdapters, IsRejected)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths: [/usr]\n", 1, "adapters",
                        "at least one adapter");
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths: [/usr]\nadapters: {}\n", 1,
                        "adapters", "at least one adapter");
}

TEST(AnAdapterWithoutExecutable, IsRejectedAtTheProfile)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths: [/usr]\nadapters:\n"
                        "  claude:\n    network: host\n",
                        7, "adapters.claude.executable", "missing required key");
}

// ----------------------------------------------------------------- paths

TEST(ARelativeDataDir, IsRejectedWithThePathProblem)
{
    EXPECT_CONFIG_ERROR("data_dir: var/lib/nr\n", 1, "data_dir", "absolute path");
}

TEST(DataDirAtTheRoot, IsRejected)
{
    EXPECT_CONFIG_ERROR("callers: {}\nsandbox:\n  read_only_paths: [/usr]\nadapters:\n  claude:\n"
                        "    executable: /usr/bin/claude\ndata_dir: /\n",
                        7, "data_dir", "must not be /");
}

TEST(ANonCanonicalGrant, IsRejectedNamingTheList)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths:\n    - /usr\n"
                        "    - /etc/../root\n",
                        6, "sandbox.read_only_paths", "canonical");
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths: [/usr/]\n", 4,
                        "sandbox.read_only_paths", "end with '/'");
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths: [/usr]\n"
                        "  hidden_paths: [home]\n",
                        5, "sandbox.hidden_paths", "absolute path");
}

TEST(ARelativeExecutableOrBwrap, IsRejected)
{
    EXPECT_CONFIG_ERROR(kMinimal + "bwrap: bwrap\n", 8, "bwrap", "absolute path");
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths: [/usr]\nadapters:\n"
                        "  claude:\n    executable: claude\n",
                        7, "adapters.claude.executable", "absolute path");
}

// ------------------------------------------- grants versus what stays hidden

TEST(AReadOnlyGrantInsideDataDir, IsRejected)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths:\n    - /usr\n"
                        "    - /var/lib/nr/native-runtime\nadapters:\n  claude:\n    executable: /usr/bin/claude\n",
                        6, "sandbox.read_only_paths", "overlaps the path /var/lib/nr");
}

TEST(AReadOnlyGrantContainingDataDir, IsRejected)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths:\n    - /usr\n"
                        "    - /var/lib\nadapters:\n  claude:\n    executable: /usr/bin/claude\n",
                        6, "sandbox.read_only_paths", "read-only grant /var/lib overlaps the path /var/lib/nr");
}

TEST(ARootGrant, IsRejectedBecauseItContainsDataDir)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths: [/]\nadapters:\n"
                        "  claude:\n    executable: /usr/bin/claude\n",
                        4, "sandbox.read_only_paths", "read-only grant / overlaps");
}

TEST(AReadOnlyGrantInsideAHiddenPath, IsRejected)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths: [/usr, /home/alice]\n"
                        "  hidden_paths: [/home]\nadapters:\n  claude:\n    executable: /usr/bin/claude\n",
                        4, "sandbox.read_only_paths", "grant /home/alice overlaps the path /home");
}

TEST(AReadOnlyGrantContainingAHiddenPath, IsRejected)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths: [/usr, /etc]\n"
                        "  hidden_paths: [/etc/shadow]\nadapters:\n  claude:\n    executable: /usr/bin/claude\n",
                        4, "sandbox.read_only_paths", "grant /etc overlaps the path /etc/shadow");
}

TEST(AnAdapterGrantOverlappingAHiddenPathOrDataDir, IsRejectedAtTheAdapterKey)
{
    // Control: without the hidden path the same adapter grants are fine.
    EXPECT_NO_THROW((void)parse(kMinimal + "    read_only_paths:\n      - /opt/claude\n      - /root/.claude\n"));
    const std::string hidden_root = "data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths: [/usr]\n"
                                    "  hidden_paths: [/root]\nadapters:\n  claude:\n"
                                    "    executable: /usr/bin/claude\n";
    EXPECT_CONFIG_ERROR(hidden_root + "    read_only_paths:\n      - /opt/claude\n      - /root/.claude\n", 11,
                        "adapters.claude.read_only_paths", "grant /root/.claude overlaps the path /root");
    EXPECT_CONFIG_ERROR(kMinimal + "    read_only_paths: [/var]\n", 8, "adapters.claude.read_only_paths",
                        "grant /var overlaps the path /var/lib/nr");
}

TEST(AnAdapterExecutableInsideAHiddenPath, IsRejected)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths: [/usr]\n"
                        "  hidden_paths: [/home]\nadapters:\n  claude:\n    executable: /home/alice/bin/claude\n",
                        8, "adapters.claude.executable", "overlaps the path /home");
}

TEST(AGrantBesideDataDirOrAHiddenPath, IsAcceptedBecauseOverlapIsComponentWise)
{
    const auto c = parse("data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n"
                         "  read_only_paths: [/usr, /var/lib/nrx, /home2]\n  hidden_paths: [/home]\n"
                         "adapters:\n  claude:\n    executable: /usr/bin/claude\n    read_only_paths: [/var/lib/n]\n");
    EXPECT_THAT(c.read_only_paths, ElementsAre("/usr", "/var/lib/nrx", "/home2"));
    EXPECT_THAT(c.adapters.at("claude").read_only_paths, ElementsAre("/var/lib/n"));
}

TEST(AReadOnlyGrantInsideWhatTheSandboxProvidesItself, IsRejected)
{
    const std::string head = "data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths:\n    - /usr\n";
    const std::string tail = "adapters:\n  claude:\n    executable: /usr/bin/claude\n";
    EXPECT_CONFIG_ERROR(head + "    - /proc/sys\n" + tail, 6, "sandbox.read_only_paths", "lies inside /proc");
    EXPECT_CONFIG_ERROR(head + "    - /dev\n" + tail, 6, "sandbox.read_only_paths", "lies inside /dev");
    EXPECT_CONFIG_ERROR(head + "    - /tmp/.X11-unix\n" + tail, 6, "sandbox.read_only_paths", "lies inside /tmp");
    EXPECT_CONFIG_ERROR(kMinimal + "    read_only_paths: [/tmp]\n", 8, "adapters.claude.read_only_paths",
                        "lies inside /tmp");
    // Component-wise: /devices and /tmpfiles are not /dev and /tmp.
    EXPECT_THAT(parse(head + "    - /devices\n    - /tmpfiles\n" + tail).read_only_paths,
                ElementsAre("/usr", "/devices", "/tmpfiles"));
}

// ----------------------------------------------------------------- sizes

TEST(AMemoryLimitWithASuffix, IsParsedAsBytes)
{
    EXPECT_EQ(parse(kMinimal + "limits:\n  memory_max: 512M\n").limits.memory_max_bytes, 512ULL << 20U);
    EXPECT_EQ(parse(kMinimal + "limits:\n  memory_max: 2G\n").limits.memory_max_bytes, 2ULL << 30U);
    EXPECT_EQ(parse(kMinimal + "limits:\n  tmp_size: 64K\n").limits.tmp_size_bytes, 64ULL << 10U);
    EXPECT_EQ(parse(kMinimal + "limits:\n  tmp_size: 1048576\n").limits.tmp_size_bytes, 1048576U);
}

TEST(AMalformedSize, IsRejectedNamingTheKey)
{
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  memory_max: bad\n", 9, "limits.memory_max", "size such as 512M");
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  memory_max: 512m\n", 9, "limits.memory_max", "size such as 512M");
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  tmp_size: 1.5G\n", 9, "limits.tmp_size", "size such as 512M");
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  tmp_size: -1G\n", 9, "limits.tmp_size", "size such as 512M");
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  tmp_size: [1G]\n", 9, "limits.tmp_size", "expected a string");
}

TEST(AZeroLimit, IsRejected)
{
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  memory_max: 0G\n", 9, "limits", "greater than zero");
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  tasks_max: 0\n", 9, "limits", "greater than zero");
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  cpu_quota_percent: 0\n", 9, "limits", "greater than zero");
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  runtime_max_sec: 0\n", 9, "limits", "greater than zero");
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  tmp_size: 0\n", 9, "limits", "greater than zero");
}

TEST(OwnerLimits, AreUnsetUnlessConfigured)
{
    const auto config = parse(kMinimal);
    EXPECT_FALSE(config.owner_limits.memory_max_bytes.has_value());
    EXPECT_FALSE(config.owner_limits.tasks_max.has_value());
}

TEST(OwnerLimits, AreParsedLikeSessionLimitsAndRejectZeroAndUnknownKeys)
{
    const auto config = parse(kMinimal + "owner_limits:\n  memory_max: 4G\n  tasks_max: 1024\n");
    EXPECT_EQ(config.owner_limits.memory_max_bytes, 4ULL << 30U);
    EXPECT_EQ(config.owner_limits.tasks_max, 1024U);
    EXPECT_CONFIG_ERROR(kMinimal + "owner_limits:\n  tasks_max: 0\n", 9, "owner_limits", "greater than zero");
    EXPECT_CONFIG_ERROR(kMinimal + "owner_limits:\n  runtime_max_sec: 10\n", 9, "owner_limits.runtime_max_sec",
                        "unknown key");
}

TEST(NumericLimits, AreAcceptedUpToTheirMaximumAndRejectedAbove)
{
    const auto at_max = parse(kMinimal + "idle_timeout_sec: 86400\nlimits:\n  tasks_max: 4194304\n"
                                         "  cpu_quota_percent: 100000\n  runtime_max_sec: 31536000\n");
    EXPECT_EQ(at_max.idle_timeout_sec, 86400U);
    EXPECT_EQ(at_max.limits.tasks_max, 4194304U);
    EXPECT_EQ(at_max.limits.cpu_quota_percent, 100000U);
    EXPECT_EQ(at_max.limits.runtime_max_sec, 31536000U);

    EXPECT_CONFIG_ERROR(kMinimal + "idle_timeout_sec: 86401\n", 8, "idle_timeout_sec", "up to 86400");
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  tasks_max: 4194305\n", 9, "limits.tasks_max", "up to 4194304");
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  cpu_quota_percent: 100001\n", 9, "limits.cpu_quota_percent",
                        "up to 100000");
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  runtime_max_sec: 31536001\n", 9, "limits.runtime_max_sec",
                        "up to 31536000");
}

TEST(ANonNumericCount, IsRejected)
{
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  tasks_max: many\n", 9, "limits.tasks_max", "unsigned integer");
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  tasks_max: -1\n", 9, "limits.tasks_max", "unsigned integer");
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  tasks_max: 0x10\n", 9, "limits.tasks_max", "unsigned integer");
    EXPECT_CONFIG_ERROR(kMinimal + "limits:\n  tasks_max: 10 tasks\n", 9, "limits.tasks_max", "unsigned integer");
    EXPECT_CONFIG_ERROR(kMinimal + "idle_timeout_sec: 99999999999999999999999\n", 8, "idle_timeout_sec",
                        "unsigned integer");
}

TEST(ParseByteSize, AcceptsPlainBytesAndBinarySuffixes)
{
    EXPECT_EQ(parse_byte_size("1024"), 1024U);
    EXPECT_EQ(parse_byte_size("0"), 0U);
    EXPECT_EQ(parse_byte_size("64K"), 64ULL * 1024);
    EXPECT_EQ(parse_byte_size("512M"), 512ULL * 1024 * 1024);
    EXPECT_EQ(parse_byte_size("2G"), 2ULL * 1024 * 1024 * 1024);
    EXPECT_EQ(parse_byte_size("1T"), 1ULL << 40U);
    EXPECT_EQ(parse_byte_size("18446744073709551615"), 18446744073709551615ULL);
    EXPECT_EQ(parse_byte_size("17179869183G"), 17179869183ULL << 30U);
}

TEST(ParseByteSize, RejectsMalformedOrOverflowingSizes)
{
    for (const char* bad : {"", "M", "G", "bad", "512m", "512MB", "1.5G", "-1", "-1G", "+1G", " 1G", "1G ", "1 G",
                            "18446744073709551616", "17179869184G", "0x10", "K1"}) {
        EXPECT_THROW((void)parse_byte_size(bad), std::invalid_argument) << "input: '" << bad << "'";
    }
}

// --------------------------------------------------------- adapter fields

TEST(ANetworkMode, IsHostOfflineOrGatewayAndNothingElse)
{
    EXPECT_EQ(parse(kMinimal + "    network: host\n").adapters.at("claude").network, NetworkMode::Host);
    EXPECT_EQ(parse(kMinimal + "    network: offline\n").adapters.at("claude").network, NetworkMode::Offline);
    EXPECT_EQ(parse(kMinimal + "    network: gateway\n").adapters.at("claude").network, NetworkMode::Gateway);
    EXPECT_CONFIG_ERROR(kMinimal + "    network: none\n", 8, "adapters.claude.network",
                        "expected host, offline or gateway");
    EXPECT_CONFIG_ERROR(kMinimal + "    network: Host\n", 8, "adapters.claude.network",
                        "expected host, offline or gateway");
    EXPECT_CONFIG_ERROR(kMinimal + "    network: [host]\n", 8, "adapters.claude.network", "expected a string");
}

TEST(NestedUserns, IsAStrictBoolean)
{
    EXPECT_TRUE(parse(kMinimal + "    nested_userns: true\n").adapters.at("claude").nested_userns);
    EXPECT_FALSE(parse(kMinimal + "    nested_userns: false\n").adapters.at("claude").nested_userns);
    EXPECT_CONFIG_ERROR(kMinimal + "    nested_userns: yes\n", 8, "adapters.claude.nested_userns",
                        "expected true or false");
    EXPECT_CONFIG_ERROR(kMinimal + "    nested_userns: 1\n", 8, "adapters.claude.nested_userns",
                        "expected true or false");
    EXPECT_CONFIG_ERROR(kMinimal + "    nested_userns: True\n", 8, "adapters.claude.nested_userns",
                        "expected true or false");
}

TEST(OnWorkerDisconnect, StopsByDefaultAndAcceptsOnlyStopOrKeep)
{
    EXPECT_FALSE(parse(kMinimal).adapters.at("claude").keep_on_worker_disconnect);
    EXPECT_FALSE(parse(kMinimal + "    on_worker_disconnect: stop\n").adapters.at("claude").keep_on_worker_disconnect);
    EXPECT_TRUE(parse(kMinimal + "    on_worker_disconnect: keep\n").adapters.at("claude").keep_on_worker_disconnect);
    EXPECT_CONFIG_ERROR(kMinimal + "    on_worker_disconnect: detach\n", 8, "adapters.claude.on_worker_disconnect",
                        "expected stop or keep");
}

TEST(AnAdapterName, MustBeAValidId)
{
    const std::string head = "data_dir: /var/lib/nr\ncallers: {}\nsandbox:\n  read_only_paths: [/usr]\nadapters:\n";
    EXPECT_CONFIG_ERROR(head + "  -claude:\n    executable: /usr/bin/claude\n", 6, "adapters.-claude",
                        "adapter must start with a letter or digit");
    EXPECT_CONFIG_ERROR(head + "  .claude:\n    executable: /usr/bin/claude\n", 6, "adapters..claude",
                        "adapter must start with a letter or digit");
    EXPECT_CONFIG_ERROR(head + "  \"a/b\":\n    executable: /usr/bin/claude\n", 6, "adapters.a/b",
                        "adapter may contain only");
    EXPECT_CONFIG_ERROR(head + "  \"a b\":\n    executable: /usr/bin/claude\n", 6, "adapters.a b",
                        "adapter may contain only");
    EXPECT_CONFIG_ERROR(head + "  \"\":\n    executable: /usr/bin/claude\n", 6, "adapters.",
                        "adapter must not be empty");
    const std::string long_name(65, 'a');
    EXPECT_CONFIG_ERROR(head + "  " + long_name + ":\n    executable: /usr/bin/claude\n", 6, "adapters." + long_name,
                        "longer than 64");
    const auto ok = parse(head + "  claude-code_v1.2@x:\n    executable: /usr/bin/claude\n");
    EXPECT_EQ(ok.adapters.count("claude-code_v1.2@x"), 1U);
}

TEST(AConfigWithAllowedAddresses, ParsesThemAsPrefixes)
{
    const auto c = parse("data_dir: /var/lib/nr\n"
                         "callers: {}\n"
                         "sandbox:\n"
                         "  read_only_paths: [/usr]\n"
                         "  allowed_addresses: [127.0.0.2, 10.255.255.53/32, 'fd00::/8']\n"
                         "adapters:\n"
                         "  claude:\n"
                         "    executable: /usr/bin/claude\n");
    ASSERT_EQ(c.allowed_addresses.size(), 3U);
    EXPECT_EQ(format_ip_prefix(c.allowed_addresses[0]), "127.0.0.2/32");
    EXPECT_EQ(format_ip_prefix(c.allowed_addresses[2]), "fd00::/8");
}

TEST(AConfigWithAMalformedAllowedAddress, IsRejectedNamingItsLine)
{
    EXPECT_CONFIG_ERROR("data_dir: /var/lib/nr\n"
                        "callers: {}\n"
                        "sandbox:\n"
                        "  read_only_paths: [/usr]\n"
                        "  allowed_addresses:\n"
                        "    - 127.0.0.2\n"
                        "    - 10.0.0.1/8\n"
                        "adapters:\n"
                        "  claude:\n"
                        "    executable: /usr/bin/claude\n",
                        7, "sandbox.allowed_addresses", "host bits");
}

TEST(AConfigListingAMasterSecretAsAnAdapterCredential, IsRejectedNamingTheAdapter)
{
    const auto yaml = "data_dir: /var/lib/nr\n"
                      "callers: {}\n"
                      "sandbox:\n"
                      "  read_only_paths: [/usr]\n"
                      "  forbidden_env: [APP_MASTER_KEY]\n"
                      "adapters:\n"
                      "  claude:\n"
                      "    executable: /usr/bin/claude\n"
                      "    credential_env: [APP_MASTER_KEY]\n";
    const auto e = nr::test::error_from([&] { (void)parse(yaml); });
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->kind(), ErrorKind::ConfigInvalid);
    EXPECT_THAT(e->what(), HasSubstr("adapters.claude.credential_env"));
    EXPECT_THAT(e->what(), HasSubstr("APP_MASTER_KEY"));
}

TEST(AConfigWithMcpTokenAndProxySettings, ParsesThem)
{
    const auto c = parse("data_dir: /var/lib/nr\n"
                         "callers: {}\n"
                         "sandbox:\n"
                         "  read_only_paths: [/usr]\n"
                         "  mcp_token_env: METIS_MCP_TOKEN\n"
                         "  proxy_env: true\n"
                         "adapters:\n"
                         "  claude:\n"
                         "    executable: /usr/bin/claude\n");
    EXPECT_EQ(c.mcp_token_env, "METIS_MCP_TOKEN");
    EXPECT_TRUE(c.proxy_env);
}

TEST(ASessionDirTemplate, MustNameTheOwnerExactlyOnce)
{
    EXPECT_CONFIG_ERROR(kMinimal + "    session_dirs: [/srv/sessions]\n", 8, "adapters.claude.session_dirs",
                        "{owner} exactly once");
    EXPECT_CONFIG_ERROR(kMinimal + "    session_dirs: ['/srv/{owner}/{owner}']\n", 8, "adapters.claude.session_dirs",
                        "{owner} exactly once");
    EXPECT_CONFIG_ERROR(kMinimal + "    session_dirs: ['srv/{owner}']\n", 8, "adapters.claude.session_dirs",
                        "absolute");
    const auto c = parse(kMinimal + "    session_dirs: ['/srv/codex/{owner}/sessions']\n");
    EXPECT_EQ(expand_owner_template(c.adapters.at("claude").session_dirs.at(0), "alice"), "/srv/codex/alice/sessions");
}

TEST(ASessionDirTemplateBelowAReadOnlyGrant, IsRejectedAtItsLine)
{
    EXPECT_CONFIG_ERROR(kMinimal + "    session_dirs: ['/usr/share/sessions/{owner}']\n", 8,
                        "adapters.claude.session_dirs", "lies under or contains the read-only grant /usr");
    EXPECT_CONFIG_ERROR(kMinimal + "    read_only_paths: [/srv/sessions]\n"
                                   "    session_dirs:\n"
                                   "      - /var/lib/state/{owner}\n"
                                   "      - /srv/sessions/{owner}/codex\n",
                        11, "adapters.claude.session_dirs", "/srv/sessions (adapters.claude.read_only_paths)");
}

TEST(ASessionDirTemplateContainingAReadOnlyGrant, IsRejectedAtItsLine)
{
    // Owner "agents" would get /srv/agents, which holds the shared grant.
    EXPECT_CONFIG_ERROR(kMinimal + "    read_only_paths: [/srv/agents/shared]\n"
                                   "    session_dirs: ['/srv/{owner}']\n",
                        9, "adapters.claude.session_dirs", "/srv/agents/shared");
    // A grant of one owner's directory would put it into every session.
    EXPECT_CONFIG_ERROR(kMinimal + "    read_only_paths: [/srv/sessions/alice]\n"
                                   "    session_dirs: ['/srv/sessions/{owner}/state']\n",
                        9, "adapters.claude.session_dirs", "/srv/sessions/alice");
}

TEST(ASessionDirTemplateOverlappingAnotherAdaptersGrant, IsRejectedToo)
{
    EXPECT_CONFIG_ERROR(kMinimal + "    session_dirs: ['/opt/codex/{owner}']\n"
                                   "  codex:\n"
                                   "    executable: /opt/codex/bin/codex\n"
                                   "    read_only_paths: [/opt/codex]\n",
                        8, "adapters.claude.session_dirs", "/opt/codex (adapters.codex.read_only_paths)");
}

TEST(ASessionDirTemplateBesideTheGrants, IsAccepted)
{
    const auto c =
        parse(kMinimal + "    read_only_paths: [/srv/agents/shared, /srv/a-b, /srv/sessions-ro]\n"
                         "    session_dirs: ['/srv/sessions/{owner}', '/srv/x{owner}', '/srv/agents/{owner}.d']\n");
    EXPECT_EQ(c.adapters.at("claude").session_dirs.size(), 3U);
}

TEST(OwnerTemplateOverlaps, MatchesOnlyExpansionsForValidOwnerIds)
{
    EXPECT_TRUE(owner_template_overlaps("/srv/s/{owner}", "/srv"));
    EXPECT_TRUE(owner_template_overlaps("/srv/s/{owner}", "/srv/s"));
    EXPECT_TRUE(owner_template_overlaps("/srv/s/{owner}", "/srv/s/alice/x"));
    EXPECT_TRUE(owner_template_overlaps("/srv/s/p-{owner}-q/x", "/srv/s/p-alice-q"));
    EXPECT_TRUE(owner_template_overlaps("/{owner}", "/usr"));
    EXPECT_FALSE(owner_template_overlaps("/srv/s/p-{owner}-q/x", "/srv/s/p-alice-q/y"));
    EXPECT_FALSE(owner_template_overlaps("/srv/s/p-{owner}-q", "/srv/s/p--q")); // empty owner
    EXPECT_FALSE(owner_template_overlaps("/srv/s/{owner}", "/srv/s/-alice"));   // not an owner id
    EXPECT_FALSE(owner_template_overlaps("/srv/s/{owner}", "/srv/t"));
    EXPECT_FALSE(owner_template_overlaps("/srv/s/{owner}", "/srv/st/alice"));
}

TEST(AnAdaptersLimits, OverrideTheGlobalOnesKeyByKey)
{
    const auto c = parse(kMinimal + "    limits: {runtime_max_sec: 2, tmp_size: 4M}\n"
                                    "limits: {memory_max: 1G, runtime_max_sec: 600}\n");
    const auto& limits = c.adapters.at("claude").limits;
    ASSERT_TRUE(limits.has_value());
    EXPECT_EQ(limits->runtime_max_sec, 2U);
    EXPECT_EQ(limits->tmp_size_bytes, 4ULL << 20U);
    EXPECT_EQ(limits->memory_max_bytes, 1ULL << 30U) << "inherited from the global limits, even when they come later";
    EXPECT_EQ(c.limits.runtime_max_sec, 600U);
}

TEST(AnAdapterWithoutLimits, UsesTheGlobalOnes)
{
    EXPECT_FALSE(parse(kMinimal).adapters.at("claude").limits.has_value());
}

TEST(AnUnknownKeyInAnAdaptersLimits, IsRejectedNamingIt)
{
    EXPECT_CONFIG_ERROR(kMinimal + "    limits: {cpu: 5}\n", 8, "adapters.claude.limits.cpu", "unknown key");
}

TEST(AConfigListingATlsWeakeningNameAsACredential, IsRejectedAtTheEntrysLine)
{
    for (const char* name :
         {"NODE_TLS_REJECT_UNAUTHORIZED", "SSL_CERT_FILE", "GIT_SSL_NO_VERIFY", "REQUESTS_CA_BUNDLE"}) {
        SCOPED_TRACE(name);
        EXPECT_CONFIG_ERROR(kMinimal + "    credential_env:\n      - ANTHROPIC_API_KEY\n      - " + name + "\n", 10,
                            "adapters.claude.credential_env", "weakens TLS verification");
    }
    const auto control = parse(kMinimal + "    credential_env:\n      - ANTHROPIC_API_KEY\n");
    EXPECT_THAT(control.adapters.at("claude").credential_env, ElementsAre("ANTHROPIC_API_KEY"));
}

TEST(AConfigListingAnotherForbiddenNameAsACredential, IsRejectedAtLoad)
{
    EXPECT_CONFIG_ERROR(kMinimal + "    credential_env: [LD_PRELOAD]\n", 8, "adapters.claude.credential_env",
                        "forbidden environment name");
    EXPECT_CONFIG_ERROR(kMinimal + "    credential_env: [HTTPS_PROXY]\n", 8, "adapters.claude.credential_env",
                        "sandbox.proxy_env");
}
