// SPDX-License-Identifier: Apache-2.0
// native-runtimectl's conventions against the real helper and systemd:
// `run` names its unit on stderr as systemd-run does (-q silences it),
// `stop` returns once the session's processes are gone, `list --no-legend`
// drops the table's legend, every --json output parses with Python's json
// module, short and pretty, a session can be named as OWNER/CHAT or by its
// unit name, and no verb means `list`.

#include "fixture.h"

#include <gtest/gtest.h>

using namespace nr::itest;

namespace {

std::string active_state(const std::string& unit)
{
    return unit_property(unit, "ActiveState");
}

} // namespace

TEST(RunOfASession, SaysWhichUnitItRunsAsOnStderr)
{
    const auto outcome =
        run(as_user(kWorker, ctl_run("conv", "named", "shell", {"sh", "-c", "echo to-stdout; echo to-stderr >&2"})));
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(outcome.out, "to-stdout\n") << "nothing of the CLI's own on stdout";
    EXPECT_NE(outcome.err.find("Running as unit: native-runtime-conv-named.service\n"), std::string::npos)
        << outcome.err;
    EXPECT_NE(outcome.err.find("to-stderr\n"), std::string::npos) << outcome.err;
}

TEST(RunWithQuiet, PrintsOnlyTheSessionsOwnOutput)
{
    const auto outcome = run(as_user(kWorker, {kCtl, "run", "-q", "--owner", "conv", "--chat", "quiet", "--adapter",
                                               "shell", "--", "sh", "-c", "echo to-stdout; echo to-stderr >&2"}));
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(outcome.out, "to-stdout\n");
    EXPECT_EQ(outcome.err, "to-stderr\n");
}

TEST(StopOfARunningSession, ReturnsOnlyOnceSystemdReportsItsProcessesGone)
{
    // A few sessions, so that a stop returning before systemd finished
    // would show at least once.
    for (const std::string chat : {"stopa", "stopb", "stopc"}) {
        const auto unit = "native-runtime-conv-" + chat + ".service";
        Background session(as_user(kWorker, ctl_run("conv", chat, "shell", {"sh", "-c", "sleep 300 & wait"})));
        ASSERT_TRUE(eventually(30, [&] { return active_state(unit) == "active"; })) << chat;
        const auto stop = run(as_user(kWorker, {kCtl, "stop", "--owner", "conv", "--chat", chat}));
        EXPECT_EQ(stop.status, 0) << stop.err;
        const auto state = active_state(unit);
        EXPECT_TRUE(state == "inactive" || state == "failed" || unit_property(unit, "LoadState") == "not-found")
            << chat << " was " << state << " when stop returned";
        EXPECT_NE(session.wait().status, 0) << "the stopped session's run ends with a signal's status";
    }
}

TEST(StopWithNoBlock, ReturnsAndTheSessionStillEnds)
{
    const std::string unit = "native-runtime-conv-noblock.service";
    Background session(as_user(kWorker, ctl_run("conv", "noblock", "shell", {"sh", "-c", "sleep 300"})));
    ASSERT_TRUE(eventually(30, [&] { return active_state(unit) == "active"; }));
    const auto stop = run(as_user(kWorker, {kCtl, "stop", "--no-block", "--owner", "conv", "--chat", "noblock"}));
    EXPECT_EQ(stop.status, 0) << stop.err;
    EXPECT_TRUE(eventually(30, [&] { return active_state(unit) != "active"; }));
    session.wait();
}

TEST(StopOfNoSession, IsRefusedAndAnInvalidChatIdIsAUsageError)
{
    const auto none = run(as_user(kWorker, {kCtl, "stop", "--owner", "conv", "--chat", "nothing"}));
    EXPECT_EQ(none.status, 65) << none.err;
    EXPECT_NE(none.err.find("org.metis.NativeRuntime1.Error.NoSuchSession"), std::string::npos) << none.err;
    const auto bad = run(as_user(kWorker, {kCtl, "stop", "--owner", "conv", "--chat",
                                           "not\xff"
                                           "utf8"}));
    EXPECT_EQ(bad.status, 64) << bad.err;
    const auto bad_run = run(as_user(kWorker, ctl_run("conv", "\xc3(", "shell", {"true"})));
    EXPECT_EQ(bad_run.status, 64) << bad_run.err;
    EXPECT_EQ(bad_run.err.find("Running as unit"), std::string::npos) << "refused before any session started";
}

TEST(ListAndStatusJson, ParseWithPythonShortAndPretty)
{
    const std::string unit = "native-runtime-conv-json.service";
    Background session(as_user(kWorker, {kCtl, "run", "--owner", "conv", "--chat", "json", "--job", "j1", "--adapter",
                                         "shell", "--", "sh", "-c", "sleep 300"}));
    ASSERT_TRUE(eventually(30, [&] { return active_state(unit) == "active"; }));

    for (const std::string flag : {"--json", "--json=short", "--json=pretty"}) {
        const auto status = run({kCtl, "status", "--owner", "conv", "--chat", "json", flag});
        ASSERT_EQ(status.status, 0) << status.err;
        EXPECT_EQ(status.out.find('\n') == status.out.size() - 1, flag != "--json=pretty") << status.out;
        EXPECT_EQ(python_json(status.out, "[doc['unit'], doc['owner'], doc['chat'], doc['job'], doc['state']]").out,
                  "[\"" + unit + "\", \"conv\", \"json\", \"j1\", \"active\"]\n")
            << flag << ": " << status.out;
        // A counter systemd has is a number; one it lacks would be null.
        EXPECT_EQ(python_json(status.out, "type(doc['tasks']).__name__").out, "\"int\"\n") << status.out;

        const auto list = run({kCtl, "list", flag});
        ASSERT_EQ(list.status, 0) << list.err;
        EXPECT_EQ(python_json(list.out, "[s['unit'] for s in doc if s['chat'] == 'json']").out, "[\"" + unit + "\"]\n")
            << flag << ": " << list.out;
    }

    const auto preflight = run({kCtl, "preflight", "--json=pretty"});
    const auto parsed = python_json(preflight.out, "sorted(doc.keys())");
    EXPECT_EQ(parsed.status, 0) << preflight.out << parsed.err;
    EXPECT_EQ(parsed.out, "[\"checks\", \"passed\"]\n") << preflight.out;

    EXPECT_EQ(run({kCtl, "stop", "--owner", "conv", "--chat", "json"}).status, 0);
    session.wait();
}

TEST(ListWithNoLegend, PrintsTheRowsAlone)
{
    const std::string unit = "native-runtime-conv-legend.service";
    Background session(as_user(kWorker, ctl_run("conv", "legend", "shell", {"sh", "-c", "sleep 300"})));
    ASSERT_TRUE(eventually(30, [&] { return active_state(unit) == "active"; }));
    const auto with = run({kCtl, "list"});
    EXPECT_NE(with.out.find("OWNER"), std::string::npos) << "control: the legend is there by default";
    EXPECT_NE(with.out.find("session(s) listed."), std::string::npos) << with.out;
    const auto without = run({kCtl, "list", "--no-legend"});
    EXPECT_EQ(without.status, 0) << without.err;
    EXPECT_EQ(without.out.find("OWNER"), std::string::npos) << without.out;
    EXPECT_EQ(without.out.find("listed."), std::string::npos) << without.out;
    EXPECT_NE(without.out.find(unit), std::string::npos) << without.out;
    EXPECT_EQ(run({kCtl, "stop", "--owner", "conv", "--chat", "legend"}).status, 0);
    session.wait();
}

TEST(ASessionNamedPositionally, RunsIsShownAndStopsAsWithTheFlags)
{
    const std::string unit = "native-runtime-conv-pos.service";
    // `run [OPTIONS] OWNER/CHAT -- COMMAND`, as `machinectl shell NAME COMMAND`.
    Background session(
        as_user(kWorker, {kCtl, "run", "--adapter", "shell", "conv/pos", "--", "sh", "-c", "sleep 300"}));
    ASSERT_TRUE(eventually(30, [&] { return active_state(unit) == "active"; }));

    const auto status = run({kCtl, "status", "conv/pos", "--json"});
    EXPECT_EQ(status.status, 0) << status.err;
    EXPECT_EQ(python_json(status.out, "[doc['owner'], doc['chat']]").out, "[\"conv\", \"pos\"]\n") << status.out;
    const auto by_unit = run({kCtl, "status", unit, "--json"});
    EXPECT_EQ(by_unit.status, 0) << by_unit.err;
    EXPECT_EQ(python_json(by_unit.out, "doc['unit']").out, "\"" + unit + "\"\n") << by_unit.out;
    const auto listed = run({kCtl});
    EXPECT_EQ(listed.status, 0) << listed.err;
    EXPECT_NE(listed.out.find("pos"), std::string::npos) << "no verb lists: " << listed.out;

    const auto conflict = run(as_user(kWorker, {kCtl, "stop", "conv/pos", "--owner", "other"}));
    EXPECT_EQ(conflict.status, 64) << conflict.err;
    EXPECT_NE(conflict.err.find("but --owner names other"), std::string::npos) << conflict.err;
    EXPECT_EQ(active_state(unit), "active") << "a usage error stops nothing";

    const auto stop = run(as_user(kWorker, {kCtl, "stop", "conv/pos"}));
    EXPECT_EQ(stop.status, 0) << stop.err;
    const auto state = active_state(unit);
    EXPECT_TRUE(state == "inactive" || state == "failed" || unit_property(unit, "LoadState") == "not-found") << state;
    EXPECT_NE(session.wait().status, 0) << "the stopped session's run ends with a signal's status";
}
