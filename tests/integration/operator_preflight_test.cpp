// SPDX-License-Identifier: Apache-2.0
// Preflight in the harness: every check passes on the prepared host, and a
// read-only grant made writable by the worker fails the immutable-code
// check, both in `native-runtimectl preflight` and in the helper's gate. An
// adapter that hands its host-network sessions a provider key gets a
// warning that does not fail preflight. The shipped Claude Code and Codex
// profiles, as the package installs them, load with the harness config and
// pass preflight.

#include "fixture.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

using namespace nr::itest;

namespace {

const std::string kConfig = "/etc/native-runtime/config.yaml";
// Under the harness's overlaid /usr, so that suites running side by side
// (scripts/test) each chown their own copy; /opt is the host's, shared.
const std::string kGrant = "/usr/local/nr-preflight-grant";

// The harness config with one more read-only grant.
std::string config_with_grant(const std::string& grant)
{
    auto text = read_file(kConfig);
    const std::string anchor = "    - /usr\n";
    const auto at = text.find(anchor);
    EXPECT_NE(at, std::string::npos) << "the harness config grants /usr";
    text.insert(at + anchor.size(), "    - " + grant + "\n");
    return text;
}

// The harness config with two more adapters: one gives its sessions
// OPENAI_API_KEY on the host network, the other keeps it in the gateway.
std::string config_with_provider_key_adapters()
{
    auto text = read_file(kConfig);
    const std::string anchor = "\nadapters:\n";
    const auto at = text.find(anchor);
    EXPECT_NE(at, std::string::npos) << "the harness config has adapters";
    text.insert(at + anchor.size(), "  nr-key-on-host:\n"
                                    "    executable: /usr/bin/sh\n"
                                    "    credential_env: [OPENAI_API_KEY]\n"
                                    "  nr-key-in-gateway:\n"
                                    "    executable: /usr/bin/sh\n"
                                    "    network: gateway\n"
                                    "    egress:\n"
                                    "      allow_hosts: [api.openai.com]\n"
                                    "      providers:\n"
                                    "        - host: api.openai.com\n"
                                    "          credential: nr-preflight-key\n"
                                    "          key_env: OPENAI_API_KEY\n"
                                    "          base_url_env: OPENAI_BASE_URL\n"
                                    "          base_path: /v1\n");
    return text;
}

std::string app_with_dropin()
{
    const std::string unit = "nr-preflight-app.service";
    write_file("/etc/systemd/system/" + unit, "[Service]\nExecStart=/bin/true\n");
    EXPECT_EQ(run({"systemctl", "daemon-reload"}).status, 0);
    const auto install = run({kCtl, "install-dropins", "--unit", unit});
    EXPECT_EQ(install.status, 0) << install.err;
    return unit;
}

const std::string kShippedProfiles = "/usr/share/doc/native-runtime/examples/adapters/";

// A shipped profile file as the package installs it, each profile renamed
// shipped-<name> and indented under `adapters:`, with the test clients'
// install prefix for /opt/agents/.
std::string shipped_profiles(const std::string& file)
{
    std::stringstream in(read_file(kShippedProfiles + file));
    std::string out;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line.front() == '#') {
            continue;
        }
        line = std::regex_replace(line, std::regex("/opt/agents/"), "/opt/native-runtime-test-clients/");
        out += (line.front() == ' ' ? "  " : "  shipped-") + line + "\n";
    }
    return out;
}

// Puts the harness config back however the test ends.
class ConfigRestorer {
public:
    ConfigRestorer() : saved_(read_file(kConfig)) {}
    ConfigRestorer(const ConfigRestorer&) = delete;
    ConfigRestorer& operator=(const ConfigRestorer&) = delete;
    ConfigRestorer(ConfigRestorer&&) = delete;
    ConfigRestorer& operator=(ConfigRestorer&&) = delete;
    ~ConfigRestorer()
    {
        write_file(kConfig, saved_);
        stop_helper();
    }

private:
    std::string saved_;
};

} // namespace

TEST(PreflightInTheHarness, PassesEveryCheck)
{
    const auto unit = app_with_dropin();
    const auto outcome = run({kCtl, "preflight", "--unit", unit});
    EXPECT_EQ(outcome.status, 0) << outcome.out << outcome.err;
    for (const auto* check : {"userns", "landlock", "bwrap", "protected-hardlinks", "snapshot-dir", "immutable-code",
                              "systemd-version", "canary-session", "dropins", "helper-dropin"}) {
        EXPECT_NE(outcome.out.find(std::string("PASS ") + check + ":"), std::string::npos) << check << '\n'
                                                                                           << outcome.out;
    }
    const auto json = run({kCtl, "preflight", "--json", "--unit", unit});
    EXPECT_EQ(json.status, 0);
    EXPECT_EQ(python_json(json.out, "doc['passed'] and all(c['passed'] for c in doc['checks'])").out, "true\n")
        << json.out;
    EXPECT_EQ(run({kCtl, "uninstall-dropins", "--unit", unit}).status, 0);
}

TEST(AHostNetworkAdapterWithAProviderKey, GetsAWarningThatLeavesPreflightPassing)
{
    const auto unit = app_with_dropin();
    const std::string config = "/etc/native-runtime/preflight-keys.yaml";
    write_file(config, config_with_provider_key_adapters());
    const auto env = with_env({"NATIVE_RUNTIME_CONFIG=" + config});

    const auto outcome = run({kCtl, "preflight", "--unit", unit}, env);
    EXPECT_EQ(outcome.status, 0) << "a warning fails nothing\n" << outcome.out << outcome.err;
    EXPECT_NE(outcome.out.find("PASS immutable-code:"), std::string::npos) << "the checks ran\n" << outcome.out;
    EXPECT_NE(outcome.out.find("WARN provider-key: adapter nr-key-on-host gives its sessions OPENAI_API_KEY with "
                               "network: host"),
              std::string::npos)
        << outcome.out;
    EXPECT_NE(outcome.out.find("     hint: give the adapter network: gateway"), std::string::npos) << outcome.out;
    EXPECT_EQ(outcome.out.find("adapter nr-key-in-gateway"), std::string::npos)
        << "control: the same key through the gateway gets no warning\n"
        << outcome.out;

    const auto json = run({kCtl, "preflight", "--json", "--unit", unit}, env);
    EXPECT_EQ(json.status, 0) << json.out << json.err;
    EXPECT_EQ(python_json(json.out, "[doc['passed']] + [[c['passed'], c['warning']] for c in doc['checks'] "
                                    "if 'adapter nr-key-' in c['detail']]")
                  .out,
              "[true, [true, true]]\n")
        << json.out;
    EXPECT_EQ(python_json(json.out, "[c['name'] for c in doc['checks'] if 'nr-key-on-host' in c['detail']]").out,
              "[\"provider-key\"]\n")
        << json.out;
    std::filesystem::remove(config);
    EXPECT_EQ(run({kCtl, "uninstall-dropins", "--unit", unit}).status, 0);
}

TEST(TheHelpersOwnDropin, IsWrittenByInstallDropinsAndReadBackByPreflight)
{
    const std::string helper_dir = "/etc/systemd/system/native-runtimed.service.d";
    const auto unit = app_with_dropin();
    const auto text = read_file(helper_dir + "/zz-native-runtime.conf");
    EXPECT_NE(text.find("ReadWritePaths=" + std::string(kDataDir) + "\n"), std::string::npos) << text;
    EXPECT_NE(run({"systemctl", "show", "-p", "ReadWritePaths", "native-runtimed.service"}).out.find(kDataDir),
              std::string::npos);
    EXPECT_NE(run({kCtl, "preflight", "--unit", unit}).out.find("PASS helper-dropin:"), std::string::npos);

    // A later drop-in that resets the list takes the write access away:
    // preflight reads systemd's view, so it names that file.
    write_file(helper_dir + "/zzz-reset.conf", "[Service]\nReadWritePaths=\n");
    ASSERT_EQ(run({"systemctl", "daemon-reload"}).status, 0);
    const auto reset = run({kCtl, "preflight", "--unit", unit});
    EXPECT_EQ(reset.status, 1);
    EXPECT_NE(reset.out.find("FAIL helper-dropin: native-runtimed.service: ReadWritePaths"), std::string::npos)
        << reset.out;
    EXPECT_NE(reset.out.find("zzz-reset.conf"), std::string::npos) << reset.out;
    ASSERT_EQ(run({"rm", helper_dir + "/zzz-reset.conf"}).status, 0);

    // Uninstalling removes the helper's drop-in with the application's.
    EXPECT_EQ(run({kCtl, "uninstall-dropins", "--unit", unit}).status, 0);
    EXPECT_FALSE(std::ifstream(helper_dir + "/zz-native-runtime.conf").good());
    const auto gone = run({kCtl, "preflight", "--unit", unit});
    EXPECT_NE(gone.out.find("FAIL helper-dropin:"), std::string::npos) << gone.out;
}

// Its sessions are as isolated as before; only the helper's start with the
// application is missing, so preflight warns and passes.
TEST(ADropinWrittenByAnEarlierVersion, PassesPreflightWithAWarningUntilInstallDropinsRewritesIt)
{
    const auto unit = app_with_dropin();
    const auto path = "/etc/systemd/system/" + unit + ".d/zz-native-runtime.conf";
    const auto current = read_file(path);
    ASSERT_NE(current.find("\nWants=native-runtimed.service\nAfter=native-runtimed.service\n"), std::string::npos)
        << current;
    auto earlier = current;
    for (const std::string line : {"Wants=native-runtimed.service\n", "After=native-runtimed.service\n"}) {
        earlier.erase(earlier.find(line), line.size());
    }
    write_file(path, earlier);
    ASSERT_EQ(run({"systemctl", "daemon-reload"}).status, 0);

    const auto outcome = run({kCtl, "preflight", "--unit", unit});
    EXPECT_EQ(outcome.status, 0) << "a warning fails nothing\n" << outcome.out << outcome.err;
    EXPECT_NE(outcome.out.find("WARN dropins: late drop-in in effect on " + unit + ", but " + unit +
                               " neither wants nor starts after native-runtimed.service"),
              std::string::npos)
        << outcome.out;
    EXPECT_NE(outcome.out.find("native-runtimectl install-dropins rewrites it"), std::string::npos) << outcome.out;

    ASSERT_EQ(run({kCtl, "install-dropins", "--unit", unit}).status, 0);
    const auto rewritten = run({kCtl, "preflight", "--unit", unit});
    EXPECT_NE(rewritten.out.find("PASS dropins: late drop-in in effect on " + unit + "\n"), std::string::npos)
        << "control: the rewritten drop-in carries the lines\n"
        << rewritten.out;
    EXPECT_EQ(run({kCtl, "uninstall-dropins", "--unit", unit}).status, 0);
}

TEST(PreflightWithoutTheDropin, FailsNamingTheDropinCheck)
{
    const std::string unit = "nr-preflight-bare.service";
    write_file("/etc/systemd/system/" + unit, "[Service]\nExecStart=/bin/true\n");
    ASSERT_EQ(run({"systemctl", "daemon-reload"}).status, 0);
    const auto outcome = run({kCtl, "preflight", "--unit", unit});
    EXPECT_EQ(outcome.status, 1) << outcome.out;
    EXPECT_NE(outcome.out.find("FAIL dropins: " + unit), std::string::npos) << outcome.out;
    EXPECT_NE(outcome.out.find("hint: native-runtimectl install-dropins"), std::string::npos) << outcome.out;
}

TEST(AReadOnlyGrantTheWorkerCanWrite, FailsTheImmutableCodeCheck)
{
    std::filesystem::create_directories(kGrant);
    ASSERT_EQ(run({"chown", "root:root", kGrant}).status, 0);
    ASSERT_EQ(run({"chmod", "0755", kGrant}).status, 0);
    const std::string config = "/etc/native-runtime/preflight-test.yaml";
    write_file(config, config_with_grant(kGrant));
    const auto env = with_env({"NATIVE_RUNTIME_CONFIG=" + config});

    const auto control = run({kCtl, "preflight"}, env);
    EXPECT_NE(control.out.find("PASS immutable-code"), std::string::npos) << "positive control\n" << control.out;

    ASSERT_EQ(run({"chown", std::string(kWorker), kGrant}).status, 0);
    const auto outcome = run({kCtl, "preflight"}, env);
    EXPECT_EQ(outcome.status, 1);
    EXPECT_NE(outcome.out.find("FAIL immutable-code: " + kGrant + " is owned by uid"), std::string::npos)
        << outcome.out;

    ASSERT_EQ(run({"chown", "root:" + std::string(kWorker), kGrant}).status, 0);
    ASSERT_EQ(run({"chmod", "0775", kGrant}).status, 0);
    const auto group = run({kCtl, "preflight"}, env);
    EXPECT_NE(group.out.find("FAIL immutable-code: " + kGrant + " is writable by nrworker (mode 0775)"),
              std::string::npos)
        << group.out;
    std::filesystem::remove_all(kGrant);
}

TEST(TheHelpersGate, RefusesSessionsWhileAPreflightCheckFails)
{
    const ConfigRestorer restore;
    std::filesystem::create_directories(kGrant);
    ASSERT_EQ(run({"chown", std::string(kWorker), kGrant}).status, 0);
    write_file(kConfig, config_with_grant(kGrant));
    stop_helper(); // the next activation reads the changed config

    const auto refused = run(as_user(kWorker, ctl_run("erin", "gate", "shell", {"sh", "-c", "echo ran"})));
    EXPECT_EQ(refused.status, 65) << refused.out << refused.err;
    EXPECT_NE(refused.err.find("org.metis.NativeRuntime1.Error.PreflightFailed"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("immutable-code"), std::string::npos) << refused.err;
    EXPECT_EQ(refused.out, "");

    // The operator fixes the host: the same helper admits the next session.
    ASSERT_EQ(run({"chown", "root:root", kGrant}).status, 0);
    const auto admitted = run(as_user(kWorker, ctl_run("erin", "gate", "shell", {"sh", "-c", "echo ran"})));
    EXPECT_EQ(admitted.status, 0) << admitted.err;
    EXPECT_EQ(admitted.out, "ran\n");
    std::filesystem::remove_all(kGrant);
}

TEST(TheShippedClaudeCodeAndCodexProfiles, LoadWithTheHarnessConfigAndPassPreflight)
{
    const auto unit = app_with_dropin();
    auto text = read_file(kConfig);
    const std::string anchor = "\nadapters:\n";
    const auto at = text.find(anchor);
    ASSERT_NE(at, std::string::npos) << "the harness config has adapters";
    text.insert(at + anchor.size(), shipped_profiles("claude.yaml") + shipped_profiles("codex.yaml"));
    const std::string config = "/etc/native-runtime/preflight-shipped.yaml";
    write_file(config, text);
    const auto env = with_env({"NATIVE_RUNTIME_CONFIG=" + config});

    const auto outcome = run({kCtl, "preflight", "--unit", unit}, env);
    std::cout << outcome.out;
    EXPECT_EQ(outcome.status, 0) << outcome.out << outcome.err;
    for (const auto* profile : {"shipped-claude ", "shipped-codex "}) {
        EXPECT_EQ(outcome.out.find(std::string("adapter ") + profile), std::string::npos)
            << "the gateway profile gets no warning: " << profile << "\n"
            << outcome.out;
    }
    for (const auto* profile : {"shipped-claude-host ", "shipped-codex-host "}) {
        EXPECT_NE(outcome.out.find(std::string("WARN provider-key: adapter ") + profile), std::string::npos)
            << "control: the host profile is warned about: " << profile << "\n"
            << outcome.out;
    }
    std::filesystem::remove(config);
    EXPECT_EQ(run({kCtl, "uninstall-dropins", "--unit", unit}).status, 0);
}
