// SPDX-License-Identifier: Apache-2.0
// `status`, `list` and `logs` against running sessions: everything read
// from systemd and the journal, shown as text and as JSON.

#include "fixture.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace nr::itest;

namespace {

void stop_and_wait(Background& session, const std::string& owner, const std::string& chat)
{
    EXPECT_EQ(run(as_user(kWorker, {kCtl, "stop", "--owner", owner, "--chat", chat})).status, 0);
    session.wait();
}

} // namespace

TEST(StatusOfARunningSession, ShowsOwnerChatJobAdapterStateAndCounters)
{
    const std::string unit = "native-runtime-carol-st.service";
    Background session(as_user(kWorker, {kCtl, "run", "--owner", "carol", "--chat", "st", "--job", "j7", "--adapter",
                                         "shell", "--", "sh", "-c", "sleep 60"}));
    ASSERT_TRUE(eventually(30, [&] { return unit_is_active(unit); }));

    const auto text = run({kCtl, "status", "--owner", "carol", "--chat", "st"});
    EXPECT_EQ(text.status, 0) << text.err;
    const auto fields = text.out;
    EXPECT_NE(fields.find("Owner: carol\n"), std::string::npos) << fields;
    EXPECT_NE(fields.find("Chat: st\n"), std::string::npos) << fields;
    EXPECT_NE(fields.find("Job: j7\n"), std::string::npos) << fields;
    EXPECT_NE(fields.find("Adapter: shell\n"), std::string::npos) << fields;
    EXPECT_NE(fields.find("State: active (running)\n"), std::string::npos) << fields;
    EXPECT_NE(fields.find("owner=carol chat=st adapter=shell"), std::string::npos) << "Description: " << fields;
    EXPECT_NE(fields.find("Tasks: "), std::string::npos) << fields;

    const auto json = run({kCtl, "status", "--owner", "carol", "--chat", "st", "--json"});
    EXPECT_EQ(json.status, 0) << json.err;
    EXPECT_EQ(python_json(json.out, "[doc['owner'], doc['job'], doc['state']]").out,
              "[\"carol\", \"j7\", \"active\"]\n")
        << json.out;
    // systemd counts the session's tasks (at least the shell and sleep);
    // memory may be null on cgroup v1, but never a made-up number.
    EXPECT_EQ(python_json(json.out, "doc['tasks'] is not None and doc['tasks'] > 0").out, "true\n") << json.out;

    const auto list = run({kCtl, "list"});
    EXPECT_EQ(list.status, 0) << list.err;
    EXPECT_NE(list.out.find("carol"), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("AGE"), std::string::npos) << list.out;
    EXPECT_NE(list.out.find("MEMORY"), std::string::npos) << list.out;
    const auto list_json = run({kCtl, "list", "--json"});
    EXPECT_EQ(python_json(list_json.out, "'" + unit + "' in [s['unit'] for s in doc]").out, "true\n") << list_json.out;
    EXPECT_EQ(list_json.out.find("native-runtime-preflight"), std::string::npos) << "the canary is no session";

    stop_and_wait(session, "carol", "st");
}

TEST(StatusOfNoSession, ExitsWithTheRefusedStatus)
{
    const auto outcome = run({kCtl, "status", "--owner", "carol", "--chat", "nothing"});
    EXPECT_EQ(outcome.status, 65);
    EXPECT_NE(outcome.err.find("NoSuchSession"), std::string::npos) << outcome.err;
    EXPECT_EQ(run({kCtl, "status", "--owner", "bad=id", "--chat", "x"}).status, 64);
}

TEST(LogsOfAnOwner, ComeFromTheJournalByStructuredFields)
{
    const auto ran = run(as_user(kWorker, ctl_run("dave", "lg", "shell", {"sh", "-c", "true"})));
    ASSERT_EQ(ran.status, 0) << ran.err;

    // The helper's record of the start carries the fields; journald may
    // take a moment to index it.
    Outcome logs;
    EXPECT_TRUE(eventually(20,
                           [&] {
                               logs = run({kCtl, "logs", "--owner", "dave"});
                               return logs.out.find("native-runtime-dave-lg.service") != std::string::npos;
                           }))
        << logs.out << logs.err;
    EXPECT_EQ(logs.status, 0) << logs.err;

    const auto other = run({kCtl, "logs", "--owner", "nobody-ran-this"});
    EXPECT_EQ(other.status, 0);
    EXPECT_EQ(other.out, "") << "positive control: another owner's logs are empty";

    const auto chat = run({kCtl, "logs", "--owner", "dave", "--chat", "lg", "--json"});
    EXPECT_EQ(chat.status, 0) << chat.err;
    // One JSON object per line: parsed together as an array of them.
    std::string array = "[";
    std::istringstream lines(chat.out);
    for (std::string line; std::getline(lines, line);) {
        array += (array.size() > 1 ? "," : "") + line;
    }
    array += "]";
    EXPECT_EQ(python_json(array, "'dave' in [r.get('NATIVE_RUNTIME_OWNER') for r in doc]").out, "true\n") << chat.out;
    const auto journalctl = run({"journalctl", "--no-pager", "-o", "cat", "NATIVE_RUNTIME_OWNER=dave"});
    EXPECT_NE(journalctl.out.find("native-runtime-dave-lg.service"), std::string::npos)
        << "journalctl finds the same records: " << journalctl.out;
}
