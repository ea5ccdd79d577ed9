// The adapter profiles shipped in examples/adapters/ (documented in
// docs/adapters.md) must stay loadable by the real config parser and
// plannable, so an operator who pastes one under `adapters:` gets a working
// profile rather than a ConfigInvalid.

#include "core/config.h"
#include "core/path_policy.h"
#include "core/session_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace nr::core;
using ::testing::Contains;
using ::testing::Not;

namespace {

const std::filesystem::path kExamples = std::filesystem::path(NR_EXAMPLES_DIR) / "adapters";

// Everything a config needs besides its adapters, as in the
// docs/configuration.md example.
const std::string kBase = "data_dir: /var/lib/metis\n"
                          "callers:\n"
                          "  users: [metis-worker]\n"
                          "sandbox:\n"
                          "  read_only_paths: [/usr, /etc/ld.so.cache, /etc/passwd, /etc/ssl/certs]\n"
                          "  hidden_paths: [/var/lib/metis-secrets, /home]\n"
                          "adapters:\n";

std::string read_text(const std::filesystem::path& file)
{
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The profile as an operator pastes it: every line indented under `adapters:`.
std::string config_with(const std::string& profile_text)
{
    std::string config = kBase;
    std::istringstream lines(profile_text);
    for (std::string line; std::getline(lines, line);) {
        config += line.empty() ? "\n" : "  " + line + "\n";
    }
    return config;
}

std::vector<std::filesystem::path> shipped_profiles()
{
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(kExamples)) {
        if (entry.path().extension() == ".yaml") {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

bool has_pair(const std::vector<std::string>& argv, const std::string& flag, const std::string& path)
{
    for (std::size_t i = 0; i + 2 < argv.size(); ++i) {
        if (argv[i] == flag && argv[i + 1] == path && argv[i + 2] == path) {
            return true;
        }
    }
    return false;
}

std::string basename_of(const std::string& path)
{
    return path.substr(path.rfind('/') + 1);
}

} // namespace

TEST(TheShippedAdapterExamples, CoverEveryClientTheRuntimeSupports)
{
    std::set<std::string> names;
    for (const auto& file : shipped_profiles()) {
        names.insert(file.stem().string());
    }
    EXPECT_EQ(names, (std::set<std::string>{"acp", "antigravity", "claude", "codex", "cursor"}));
}

TEST(EachShippedAdapterExample, ParsesAsExactlyTheProfileItsFileIsNamedAfter)
{
    for (const auto& file : shipped_profiles()) {
        SCOPED_TRACE(file.string());
        const auto config = parse_config(config_with(read_text(file)), file.string());
        ASSERT_EQ(config.adapters.size(), 1U);
        EXPECT_EQ(config.adapters.begin()->first, file.stem().string());
    }
}

TEST(EachShippedAdapterExample, GrantsItsOwnExecutableReadOnly)
{
    for (const auto& file : shipped_profiles()) {
        SCOPED_TRACE(file.string());
        const auto config = parse_config(config_with(read_text(file)), file.string());
        const auto& profile = config.adapters.begin()->second;
        EXPECT_TRUE(std::any_of(profile.read_only_paths.begin(), profile.read_only_paths.end(),
                                [&](const std::string& grant) { return path_is_within(profile.executable, grant); }))
            << profile.executable << " is outside the profile's read_only_paths, so bwrap could not exec it";
    }
}

TEST(EachShippedAdapterExample, PlansASessionWithItsGrantsSessionDirsAndUsernsChoice)
{
    for (const auto& file : shipped_profiles()) {
        SCOPED_TRACE(file.string());
        const auto config = parse_config(config_with(read_text(file)), file.string());
        const auto& [name, profile] = *config.adapters.begin();
        SessionRequest request;
        request.owner = "alice";
        request.chat = "c1";
        request.adapter = name;
        request.argv = {basename_of(profile.executable), "--version"};
        const auto plan = plan_session(config, request, RunAsUser{"metis-worker", 990, 990},
                                       HostFacts{"/usr/libexec/native-runtime/native-runtime-launch", {}}, "token");
        const auto& argv = plan.launch.bwrap_argv;
        for (const auto& grant : profile.read_only_paths) {
            EXPECT_TRUE(has_pair(argv, "--ro-bind", grant)) << grant;
        }
        for (const auto& path_template : profile.session_dirs) {
            const auto dir = expand_owner_template(path_template, "alice");
            EXPECT_NE(dir.find("/alice"), std::string::npos) << dir;
            EXPECT_TRUE(has_pair(argv, "--bind", dir)) << dir;
        }
        if (profile.nested_userns) {
            EXPECT_THAT(argv, Not(Contains("--disable-userns")));
        } else {
            EXPECT_THAT(argv, Contains("--disable-userns"));
        }
        EXPECT_EQ(argv.back(), "--version");
        EXPECT_EQ(argv[argv.size() - 2], profile.executable);
    }
}

namespace {

// A profile's settings without comments or blank lines, each line with its
// indentation relative to the profile's key and the key itself dropped.
std::vector<std::string> settings_lines(const std::string& text, const std::string& key_line)
{
    std::vector<std::string> out;
    std::istringstream lines(text);
    std::string::size_type indent = std::string::npos;
    for (std::string line; std::getline(lines, line);) {
        const auto first = line.find_first_not_of(' ');
        if (indent == std::string::npos) {
            if (first != std::string::npos && line.substr(first) == key_line) {
                indent = first;
            }
            continue;
        }
        if (first == std::string::npos || line[first] == '#') {
            continue;
        }
        if (first <= indent) {
            break;
        }
        out.push_back(line.substr(indent));
    }
    return out;
}

std::string with_test_prefix(std::string line)
{
    const std::string shipped = "/opt/agents/";
    if (const auto at = line.find(shipped); at != std::string::npos) {
        line.replace(at, shipped.size(), "/opt/native-runtime-test-clients/");
    }
    return line;
}

} // namespace

TEST(TheIntegrationSuitesExampleClaudeProfile, IsTheShippedClaudeExampleWithTheTestInstallPrefix)
{
    auto shipped = settings_lines(read_text(kExamples / "claude.yaml"), "claude:");
    std::transform(shipped.begin(), shipped.end(), shipped.begin(), with_test_prefix);
    const auto tested = settings_lines(read_text(NR_INTEGRATION_CONFIG), "example-claude:");
    ASSERT_FALSE(shipped.empty());
    EXPECT_EQ(tested, shipped);
}
