// SPDX-License-Identifier: Apache-2.0
// examples/worker.py, the worker the docs point to, run as the configured
// worker against the real helper: a real client from an example adapter
// profile, its output streamed, the signals it handles (SessionWaiting,
// SessionEnded), its timeout and the helper disappearing under it. Also the
// parts of the Manager API it relies on: StartSessionWithOptions' strict
// options and the Version and ActiveSessions properties.

#include "fixture.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace nr::itest;

namespace {

const std::string kPython = "/usr/bin/python3";
const std::string kClaude = "/opt/native-runtime-test-clients/claude/bin/claude";

std::vector<std::string> worker(const std::string& owner, const std::string& chat, const std::string& adapter,
                                const std::vector<std::string>& command, const std::vector<std::string>& options = {})
{
    std::vector<std::string> argv{kPython, NR_WORKER_EXAMPLE, "--owner", owner, "--chat", chat, "--adapter", adapter};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.emplace_back("--");
    argv.insert(argv.end(), command.begin(), command.end());
    return as_user(kWorker, argv);
}

std::vector<std::string> manager_property(const std::string& name)
{
    return {"busctl",
            "--system",
            "get-property",
            "org.metis.NativeRuntime1",
            "/org/metis/NativeRuntime1",
            "org.metis.NativeRuntime1.Manager",
            name};
}

// StartSessionWithOptions with the caller's own stdio as the session's and
// one option (its value as JSON), through jeepney (a client that is not
// ours; busctl cannot send descriptors). Prints the unit, or the error's
// name and message on stderr with exit status 1.
constexpr const char* kStartWithOption = R"(
import json, sys
from jeepney import DBusAddress, MessageType, new_method_call
from jeepney.io.blocking import open_dbus_connection
chat, key, signature, value = sys.argv[1:]
helper = DBusAddress("/org/metis/NativeRuntime1", bus_name="org.metis.NativeRuntime1",
                     interface="org.metis.NativeRuntime1.Manager")
conn = open_dbus_connection(bus="SYSTEM", enable_fds=True)
reply = conn.send_and_get_reply(new_method_call(
    helper, "StartSessionWithOptions", "sssashhha{sv}",
    ("wex", chat, "shell", ["/usr/bin/sh", "-c", "exit 0"], 0, 1, 2, {key: (signature, json.loads(value))})))
if reply.header.message_type == MessageType.error:
    sys.exit(f"{reply.header.fields.get(4)}: {reply.body[0]}")
print(reply.body[0])
)";

std::vector<std::string> start_with_option(const std::string& chat, const std::string& key,
                                           const std::string& signature, const std::string& json_value)
{
    return {kPython, "-c", kStartWithOption, chat, key, signature, json_value};
}

} // namespace

TEST(TheWorkerExample, RunsARealClientFromAnExampleAdapterProfileAndStreamsItsOutput)
{
    const auto outcome = run(worker("wex", "version", "example-claude", {kClaude, "--version"}));
    // What the docs show, from a real run (the log is the evidence).
    std::cout << "---- TRANSCRIPT worker example ----\n"
              << outcome.err << outcome.out << "worker exit status: " << outcome.status << '\n';
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_TRUE(contains(outcome.out, "out: ")) << outcome.out;
    EXPECT_TRUE(contains(outcome.out, "Claude Code")) << outcome.out;
    EXPECT_TRUE(contains(outcome.err, "worker: helper version 0.1.0")) << outcome.err;
    EXPECT_TRUE(contains(outcome.err, "ended: result=success code=1 status=0")) << outcome.err;
}

TEST(TheWorkerExample, SeparatesTheSessionsStreamsAndExitsWithTheCommandsStatus)
{
    const auto outcome =
        run(worker("wex", "status", "shell", {"/usr/bin/sh", "-c", "echo to-stdout; echo to-stderr >&2; exit 3"}));
    EXPECT_EQ(outcome.status, 3) << outcome.err;
    EXPECT_TRUE(contains(outcome.out, "out: to-stdout")) << outcome.out;
    EXPECT_TRUE(contains(outcome.err, "err: to-stderr")) << outcome.err;
    EXPECT_FALSE(contains(outcome.out, "to-stderr")) << outcome.out;
}

TEST(TheWorkerExample, PassesNamedVariablesFromItsEnvironmentNotItsArgv)
{
    const auto outcome = run(worker("wex", "env", "shell", {"/usr/bin/sh", "-c", "echo \"token=$NR_TEST_TOKEN\""},
                                    {"--env", "NR_TEST_TOKEN"}),
                             with_env({"NR_TEST_TOKEN=worker-example-secret"}));
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_TRUE(contains(outcome.out, "out: token=worker-example-secret")) << outcome.out;
}

TEST(TheWorkerExample, StopsTheSessionAtItsTimeoutAndExitsLikeTimeout)
{
    const auto outcome =
        run(worker("wex", "timeout", "shell", {"/usr/bin/sh", "-c", "exec sleep 300"}, {"--timeout", "2"}));
    EXPECT_EQ(outcome.status, 124) << outcome.err;
    EXPECT_TRUE(contains(outcome.err, "timeout: stopping " + unit_of("wex", "timeout"))) << outcome.err;
    EXPECT_FALSE(unit_is_active(unit_of("wex", "timeout")));
}

TEST(TheWorkerExample, ReportsItsPlaceInTheHostAuthQueueUntilAdmitted)
{
    Background holder(
        as_user(kWorker, ctl_run("wex", "holder", "serial-worker-example", {"/usr/bin/sh", "-c", "exec sleep 4"})));
    ASSERT_TRUE(eventually(60, [] { return unit_is_active(unit_of("wex", "holder")); }));
    const auto outcome = run(worker("wex", "waiter", "serial-worker-example", {"/usr/bin/sh", "-c", "echo admitted"}));
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_TRUE(contains(outcome.err, "waiting for host-auth admission: 1 ahead")) << outcome.err;
    EXPECT_TRUE(contains(outcome.err, "worker: admitted")) << outcome.err;
    EXPECT_TRUE(contains(outcome.out, "out: admitted")) << outcome.out;
    EXPECT_EQ(holder.wait().status, 0);
}

TEST(TheWorkerExample, FollowsItsSessionAcrossAHelperThatWasKilled)
{
    Background follower(worker("wex", "crash", "shell", {"/usr/bin/sh", "-c", "sleep 5; echo finished"}));
    ASSERT_TRUE(eventually(60, [] { return session_is_running(unit_of("wex", "crash")); }));
    const auto helper = std::stoi(unit_property("native-runtimed.service", "MainPID"));
    ASSERT_GT(helper, 0);
    ASSERT_EQ(kill(helper, SIGKILL), 0);

    const auto outcome = follower.wait();
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_TRUE(contains(outcome.err, "the helper went away")) << outcome.err;
    EXPECT_TRUE(contains(outcome.err, "ended: result=success")) << outcome.err;
    EXPECT_TRUE(contains(outcome.out, "out: finished")) << outcome.out;
}

TEST(StartSessionWithOptions, StartsASessionWithAKnownOption)
{
    const auto outcome = run(as_user(kWorker, start_with_option("optok", "job", "s", "\"j1\"")));
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_TRUE(contains(outcome.out, unit_of("wex", "optok"))) << outcome.out;
}

TEST(StartSessionWithOptions, RefusesAnUnknownOptionInsteadOfIgnoringIt)
{
    const auto outcome = run(as_user(kWorker, start_with_option("optbad", "worksapce", "s", "\"/tmp\"")));
    EXPECT_NE(outcome.status, 0);
    EXPECT_TRUE(contains(outcome.err, "org.metis.NativeRuntime1.Error.InvalidArgument: unknown option \"worksapce\""))
        << outcome.err;
    EXPECT_EQ(unit_property(unit_of("wex", "optbad"), "LoadState"), "not-found");
}

TEST(StartSessionWithOptions, RefusesAKnownOptionOfAnotherType)
{
    const auto outcome = run(as_user(kWorker, start_with_option("opttype", "job", "u", "7")));
    EXPECT_NE(outcome.status, 0);
    EXPECT_TRUE(
        contains(outcome.err, "org.metis.NativeRuntime1.Error.InvalidArgument: option \"job\" must have type s"))
        << outcome.err;
}

TEST(TheManagerProperties, TellTheWorkerTheVersionAndHowManySessionsRun)
{
    const auto version = run(as_user(kWorker, manager_property("Version")));
    EXPECT_EQ(version.status, 0) << version.err;
    EXPECT_EQ(version.out, "s \"0.1.0\"\n");

    Background session(as_user(kWorker, ctl_run("wex", "count", "shell", {"/usr/bin/sh", "-c", "exec sleep 300"})));
    ASSERT_TRUE(eventually(60, [] { return unit_is_active(unit_of("wex", "count")); }));
    const auto active = run(as_user(kWorker, manager_property("ActiveSessions")));
    EXPECT_EQ(active.status, 0) << active.err;
    EXPECT_NE(active.out, "u 0\n") << active.out;
    EXPECT_EQ(active.out.rfind("u ", 0), 0U) << active.out;
    EXPECT_EQ(run(as_user(kWorker, {kCtl, "stop", "--owner", "wex", "--chat", "count"})).status, 0);
    (void)session.wait();
}

TEST(TheManagerProperties, AreClosedToUsersOutsideTheBusPolicy)
{
    const auto outcome = run(as_user(kOutsider, manager_property("Version")));
    EXPECT_NE(outcome.status, 0) << outcome.out;
    EXPECT_TRUE(contains(outcome.err, "denied") || contains(outcome.err, "Denied")) << outcome.err;
}

TEST(TheInstalledInterfaceFiles, PublishManagerAndFilesButNotTheInternalLauncher)
{
    std::ifstream in("/usr/share/dbus-1/interfaces/org.metis.NativeRuntime1.xml");
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_TRUE(contains(text.str(), "org.metis.NativeRuntime1.Manager"));
    EXPECT_FALSE(contains(text.str(), "org.metis.NativeRuntime1.Launcher"));
    EXPECT_FALSE(std::ifstream("/usr/share/dbus-1/interfaces/org.metis.NativeRuntime1.Launcher.xml").good());
    EXPECT_TRUE(std::ifstream("/usr/share/dbus-1/interfaces/org.metis.NativeRuntime1.Files.xml").good());
}
