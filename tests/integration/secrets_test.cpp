// SPDX-License-Identifier: Apache-2.0
// Secrets and the session environment. A credential reaches the agent, and
// nowhere that systemd or the journal would show it to other local users.

#include "fixture.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

using namespace nr::itest;

namespace {

std::string random_secret()
{
    std::random_device device;
    return "sk-test-" + std::to_string(device()) + std::to_string(device());
}

// Every /proc/<pid>/cmdline on the host that holds `secret`.
std::string cmdlines_holding(const std::string& secret)
{
    const auto found = probe_outside("root", {"find-canary", hex(secret)})["canary_found"];
    std::string cmdlines;
    std::size_t start = 0;
    while (start < found.size()) {
        auto end = found.find(',', start);
        if (end == std::string::npos) {
            end = found.size();
        }
        const auto path = found.substr(start, end - start);
        if (path.ends_with("/cmdline")) {
            cmdlines += path + " ";
        }
        start = end + 1;
    }
    return cmdlines;
}

} // namespace

TEST(ACredentialOfTheAdapter, ReachesTheAgent)
{
    const auto secret = random_secret();
    const auto outcome = run(as_user(kWorker, {kCtl, "run", "--owner", "alice", "--chat", "cred", "--adapter", "probe",
                                               "--env", "NR_TEST_TOKEN", "--", "nr-probe", "env-has", "NR_TEST_TOKEN"}),
                             with_env({"NR_TEST_TOKEN=" + secret}));
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(parse_lines(outcome.out)["env_has"], "yes");
}

TEST(ACredentialOfTheAdapter, IsNeitherInTheUnitNorTheJournalNorAnyCommandLine)
{
    const auto secret = random_secret();
    const std::string unit = "native-runtime-alice-secret.service";
    // The worker gets the secret in its environment and forwards it by name,
    // so no command line on the host ever holds it. The agent leaves a mark
    // once it has looked: an active unit does not mean the shell has run yet,
    // and a stop before it has would take its answer with it.
    const auto looked = home_of("alice") + "/secret-looked";
    std::filesystem::remove(looked);
    Background session(as_user(kWorker, {kCtl, "run", "--owner", "alice", "--chat", "secret", "--adapter", "shell",
                                         "--env", "NR_TEST_TOKEN", "--", "sh", "-c",
                                         "test -n \"$NR_TEST_TOKEN\" && echo present; touch \"$HOME/secret-looked\"; "
                                         "sleep 30"}),
                       with_env({"NR_TEST_TOKEN=" + secret}));
    ASSERT_TRUE(eventually(30, [&] { return unit_is_active(unit) && std::filesystem::exists(looked); }));

    const auto shown = run({"systemctl", "show", unit}).out;
    EXPECT_TRUE(contains(shown, "NATIVE_RUNTIME_OWNER=alice")) << "control: systemctl show lists the unit's settings";
    EXPECT_FALSE(contains(shown, secret));
    EXPECT_EQ(cmdlines_holding(secret), "");
    const auto journal = run({"journalctl", "-b", "-q", "-o", "verbose", "--no-pager"}).out;
    EXPECT_FALSE(contains(journal, secret));

    // The unit's main process (the launcher, which wiped its copy) and
    // bwrap, its child, hold the credential neither in their command lines
    // nor their environments: it reaches bwrap through a memfd.
    const auto main_pid = unit_property(unit, "MainPID");
    std::string bwrap_pid;
    std::ifstream(std::filesystem::path("/proc") / main_pid / "task" / main_pid / "children") >> bwrap_pid;
    ASSERT_FALSE(bwrap_pid.empty()) << "the launcher stays bwrap's parent";
    const auto found = probe_outside("root", {"find-canary", hex(secret)})["canary_found"];
    EXPECT_NE(found, "none") << "control: the agent's own environment holds it";
    EXPECT_FALSE(contains("," + found + ",", ",/proc/" + main_pid + "/")) << found;
    EXPECT_FALSE(contains("," + found + ",", ",/proc/" + bwrap_pid + "/")) << found;

    EXPECT_EQ(run(as_user(kWorker, {kCtl, "stop", "--owner", "alice", "--chat", "secret"})).status, 0);
    const auto ended = session.wait();
    EXPECT_EQ(ended.out, "present\n") << "the agent had the credential";
}

TEST(ThePlacesSearchedForASecret, DoShowAValuePlacedThere)
{
    // Positive controls for the searches above: a value put in a unit's
    // Environment=, in a command line and in the journal is found.
    const auto canary = random_secret();
    const std::string unit = "nr-secret-control.service";
    ASSERT_EQ(run({"systemd-run", "--unit", unit, "-p", "Environment=CONTROL=" + canary, "sleep", "30"}).status, 0);
    EXPECT_TRUE(contains(run({"systemctl", "show", unit}).out, canary));
    (void)run({"systemctl", "stop", unit});
    {
        // Short sleeps, so killing the shell frees the output pipe at once.
        Background holder({"sh", "-c", "while :; do sleep 0.2; done", canary});
        EXPECT_TRUE(eventually(10, [&] { return !cmdlines_holding(canary).empty(); }));
    }
    ASSERT_EQ(run({"systemd-cat", "-t", "nr-control", "echo", canary}).status, 0);
    EXPECT_TRUE(eventually(10, [&] {
        return contains(run({"journalctl", "-b", "-q", "-o", "verbose", "--no-pager"}).out, canary);
    }));
}

TEST(AForbiddenEnvironmentName, IsRefusedWithInvalidEnvironment)
{
    for (const auto* assignment : {"LD_PRELOAD=/tmp/x.so", "NODE_OPTIONS=--require=/tmp/x",
                                   "DBUS_SESSION_BUS_ADDRESS=x", "https_proxy=http://x", "PATH=/tmp"}) {
        const auto outcome = run(as_user(kWorker, {kCtl, "run", "--owner", "alice", "--chat", "env", "--adapter",
                                                   "shell", "--env", assignment, "--", "sh", "-c", "echo ran"}));
        EXPECT_EQ(outcome.status, 65) << assignment;
        EXPECT_EQ(outcome.out, "") << assignment;
        EXPECT_TRUE(contains(outcome.err, "org.metis.NativeRuntime1.Error.InvalidEnvironment")) << outcome.err;
    }
}

TEST(AnEnvironmentValueWithANewline, IsRefusedWithInvalidEnvironment)
{
    const auto outcome = run(as_user(kWorker, {kCtl, "run", "--owner", "alice", "--chat", "env-nl", "--adapter",
                                               "shell", "--env", "LANG=C\nX=1", "--", "sh", "-c", "echo ran"}));
    EXPECT_EQ(outcome.status, 65);
    EXPECT_TRUE(contains(outcome.err, "org.metis.NativeRuntime1.Error.InvalidEnvironment")) << outcome.err;
}

TEST(ACredentialInsideTheSandbox, IsOnlyInTheAgentsOwnEnvironmentNotInPidOne)
{
    const auto secret = random_secret();
    const auto outcome =
        run(as_user(kWorker, {kCtl, "run", "--owner", "alice", "--chat", "cred-pid1", "--adapter", "probe", "--env",
                              "NR_TEST_TOKEN", "--", "nr-probe", "find-canary", hex(secret)}),
            with_env({"NR_TEST_TOKEN=" + secret}));
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    const auto found = parse_lines(outcome.out)["canary_found"];
    EXPECT_TRUE(contains(found, "/proc/self/environ")) << "control: the probe finds its own copy: " << found;
    EXPECT_FALSE(contains(found, "/proc/1/")) << "bwrap's init inside the sandbox holds it: " << found;
}
