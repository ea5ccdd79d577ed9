// SPDX-License-Identifier: Apache-2.0
// `status`, `list` and `logs` against running sessions: everything read
// from systemd and the journal, shown as text and as JSON.

#include "fixture.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

using namespace nr::itest;

namespace {

void stop_and_wait(Background& session, const std::string& owner, const std::string& chat)
{
    EXPECT_EQ(run(as_user(kWorker, {kCtl, "stop", "--owner", owner, "--chat", chat})).status, 0);
    session.wait();
}

// The PID of the process whose command line is exactly `cmdline`
// (arguments each ended by NUL), or "" when there is none.
std::string pid_with_cmdline(const std::string& cmdline)
{
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const auto name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) {
            continue;
        }
        std::ifstream file(entry.path() / "cmdline", std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        if (text == cmdline) {
            return name;
        }
    }
    return {};
}

} // namespace

TEST(StatusOfARunningSession, ShowsItsProcessTreeEscapedAndItsLastJournalRecords)
{
    using namespace std::string_literals;
    const std::string unit = "native-runtime-carol-tree.service";
    // The shell's argv carries an escape sequence that would clear the
    // operator's screen if status printed it raw.
    Background session(as_user(kWorker, ctl_run("carol", "tree", "shell", {"sh", "-c", "sleep 61; : '\x1b[2J'"})));
    ASSERT_TRUE(eventually(30, [&] { return session_is_running(unit); }));
    std::string sleep_pid;
    ASSERT_TRUE(eventually(20, [&] {
        return !(sleep_pid = pid_with_cmdline("sleep\0"s
                                              "61\0"s))
                    .empty();
    }));

    // journald may take a moment to index the helper's start record.
    Outcome text;
    EXPECT_TRUE(eventually(20,
                           [&] {
                               text = run({kCtl, "status", "--owner", "carol", "--chat", "tree", "-n", "50"});
                               return text.out.find("started " + unit) != std::string::npos;
                           }))
        << text.out << text.err;
    EXPECT_EQ(text.status, 0) << text.err;
    const auto control_group = unit_property(unit, "ControlGroup");
    EXPECT_NE(text.out.find("   CGroup: " + control_group + "\n"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("─" + sleep_pid + " sleep 61\n"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("sh -c sleep 61; : '\\x1b[2J'"), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find('\x1b'), std::string::npos) << "no raw escape reaches the terminal";

    const auto json = run({kCtl, "status", "--owner", "carol", "--chat", "tree", "-n", "50", "--json"});
    EXPECT_EQ(json.status, 0) << json.err;
    EXPECT_EQ(python_json(json.out, "[p['command'] for p in doc['processes'] if p['pid'] == " + sleep_pid + "]").out,
              "[\"sleep 61\"]\n")
        << json.out;
    EXPECT_EQ(python_json(json.out, "any(r['message'].startswith('started " + unit + "') for r in doc['journal'])").out,
              "true\n")
        << json.out;

    // -n 0 shows no records; the default shows at most 10.
    const auto none = run({kCtl, "status", "--owner", "carol", "--chat", "tree", "-n", "0", "--json"});
    EXPECT_EQ(python_json(none.out, "doc['journal']").out, "[]\n") << none.out;
    const auto ten = run({kCtl, "status", "--owner", "carol", "--chat", "tree", "--json"});
    EXPECT_EQ(python_json(ten.out, "0 < len(doc['journal']) <= 10").out, "true\n") << ten.out;

    // The session's own user may not read the system journal: a hint, not a
    // failure; the tree is still there.
    const auto unprivileged = run(as_user(kWorker, {kCtl, "status", "--owner", "carol", "--chat", "tree"}));
    EXPECT_EQ(unprivileged.status, 0) << unprivileged.err;
    EXPECT_NE(unprivileged.out.find("─" + sleep_pid + " sleep 61\n"), std::string::npos) << unprivileged.out;
    EXPECT_NE(unprivileged.out.find("\nHint: the session's journal records are shown to root"), std::string::npos)
        << unprivileged.out;
    const auto unprivileged_json =
        run(as_user(kWorker, {kCtl, "status", "--owner", "carol", "--chat", "tree", "--json"}));
    EXPECT_EQ(python_json(unprivileged_json.out, "doc['journal']").out, "null\n") << unprivileged_json.out;

    stop_and_wait(session, "carol", "tree");
}

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
