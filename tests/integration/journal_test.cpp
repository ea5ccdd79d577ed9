// SPDX-License-Identifier: Apache-2.0
// What the helper, the launcher and systemd write to the journal about
// sessions, read back as an operator would: `journalctl -o json`, parsed,
// and `native-runtimectl logs`, which must show only records whose writer
// journald vouches for.

#include "fixture.h"
#include "journal_records.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <ctime>
#include <sstream>
#include <thread>

using namespace nr::itest;
using json = nlohmann::json;

namespace {

std::string uid_of(const std::string& user)
{
    auto id = run({"id", "-u", user}).out;
    while (!id.empty() && id.back() == '\n') {
        id.pop_back();
    }
    return id;
}

std::size_t count_with(const std::vector<json>& records, const char* name, const std::string& value)
{
    std::size_t n = 0;
    for (const auto& record : records) {
        n += field(record, name) == value ? 1 : 0;
    }
    return n;
}

} // namespace

TEST(ARefusedStartSession, IsAWarningInTheJournalWithTheCallerTheErrorAndTheUnit)
{
    const auto refused = run(as_user(kStranger, ctl_run("erin", "rf", "shell", {"sh", "-c", "true"})));
    ASSERT_NE(refused.status, 0) << "the stranger is not a configured caller";

    const auto record = last_record({std::string("MESSAGE_ID=") + kSessionRefused, "NATIVE_RUNTIME_OWNER=erin"});
    EXPECT_EQ(field(record, "PRIORITY"), "4");
    EXPECT_EQ(field(record, "SYSLOG_IDENTIFIER"), "native-runtimed");
    EXPECT_EQ(field(record, "NATIVE_RUNTIME_METHOD"), "StartSession");
    EXPECT_EQ(field(record, "NATIVE_RUNTIME_ERROR"), "AccessDenied");
    EXPECT_EQ(field(record, "NATIVE_RUNTIME_CALLER_UID"), uid_of(kStranger));
    EXPECT_FALSE(field(record, "NATIVE_RUNTIME_CALLER_PID").empty());
    EXPECT_EQ(field(record, "NATIVE_RUNTIME_CHAT"), "rf");
    EXPECT_EQ(field(record, "OBJECT_SYSTEMD_UNIT"), "native-runtime-erin-rf.service");
    EXPECT_EQ(field(record, "_UID"), "0") << "written by the helper itself";

    // OBJECT_SYSTEMD_UNIT= puts it where an operator looks for the unit.
    const auto by_unit = journal({"-u", "native-runtime-erin-rf.service"});
    EXPECT_GE(count_with(by_unit, "MESSAGE_ID", kSessionRefused), 1U);
}

TEST(ARefusedFileOperation, IsAWarningInTheJournalWithItsOwnMessageId)
{
    const auto refused = run(as_user(kWorker, {kCtl, "file", "read", "--owner", "erin", "--chat", "fr", "../outside"}));
    ASSERT_NE(refused.status, 0);

    const auto record = last_record({std::string("MESSAGE_ID=") + kFileOperationRefused, "NATIVE_RUNTIME_OWNER=erin"});
    EXPECT_EQ(field(record, "PRIORITY"), "4");
    EXPECT_EQ(field(record, "NATIVE_RUNTIME_METHOD"), "OpenForRead");
    EXPECT_EQ(field(record, "NATIVE_RUNTIME_ERROR"), "InvalidPath");
    EXPECT_EQ(field(record, "NATIVE_RUNTIME_CALLER_UID"), uid_of(kWorker));
    EXPECT_EQ(field(record, "OBJECT_SYSTEMD_UNIT"), "native-runtime-erin-fr.service");
}

TEST(ASessionsStartAndEnd, AreStructuredRecordsOfTheHelperAboutItsUnit)
{
    const std::string unit = "native-runtime-frank-end.service";
    const auto ran = run(as_user(kWorker, ctl_run("frank", "end", "shell", {"sh", "-c", "exit 3"})));
    EXPECT_EQ(ran.status, 3) << ran.err;

    const auto started = last_record({std::string("MESSAGE_ID=") + kSessionStarted, "OBJECT_SYSTEMD_UNIT=" + unit});
    EXPECT_EQ(field(started, "PRIORITY"), "6");
    EXPECT_EQ(field(started, "NATIVE_RUNTIME_CALLER_UID"), uid_of(kWorker));
    EXPECT_EQ(field(started, "NATIVE_RUNTIME_ADAPTER"), "shell");

    const auto ended = last_record({std::string("MESSAGE_ID=") + kSessionEnded, "OBJECT_SYSTEMD_UNIT=" + unit});
    EXPECT_EQ(field(ended, "PRIORITY"), "4") << "a failed session is a warning";
    EXPECT_EQ(field(ended, "NATIVE_RUNTIME_RESULT"), "exit-code");
    EXPECT_EQ(field(ended, "NATIVE_RUNTIME_EXIT_CODE"), "exited");
    EXPECT_EQ(field(ended, "NATIVE_RUNTIME_EXIT_STATUS"), "3");
    EXPECT_FALSE(field(ended, "NATIVE_RUNTIME_RUNTIME_USEC").empty()) << ended.dump();
    EXPECT_EQ(field(ended, "NATIVE_RUNTIME_OWNER"), "frank");
    EXPECT_EQ(journal({std::string("MESSAGE_ID=") + kSessionEnded, "OBJECT_SYSTEMD_UNIT=" + unit}).size(), 1U)
        << "one record per session end";
}

TEST(LogsOfASession, IgnoreARecordForgedByAnUnprivilegedUser)
{
    const std::string unit = "native-runtime-dave-fg.service";
    const auto ran = run(as_user(kWorker, ctl_run("dave", "fg", "shell", {"sh", "-c", "true"})));
    ASSERT_EQ(ran.status, 0) << ran.err;
    last_record({std::string("MESSAGE_ID=") + kSessionEnded, "OBJECT_SYSTEMD_UNIT=" + unit});

    // Every field `logs` used to match on, and those of a helper record,
    // sent by a user who may write to the journal like any local user.
    const std::string forged = "MESSAGE=forged by a stranger\nMESSAGE_ID=" + std::string(kSessionStarted) +
                               "\nSYSLOG_IDENTIFIER=native-runtimed\nNATIVE_RUNTIME_OWNER=dave\n"
                               "NATIVE_RUNTIME_CHAT=fg\nOBJECT_SYSTEMD_UNIT=" +
                               unit + "\nUNIT=" + unit + "\n";
    const auto sent = run(as_user(kStranger, {"sh", "-c", "printf '%s' \"$1\" | logger --journald", "sh", forged}));
    ASSERT_EQ(sent.status, 0) << sent.err;
    // Positive control: the forged record is in the journal, and a match
    // on the fields alone (what `logs` did before) finds it.
    const auto planted = last_record({"MESSAGE=forged by a stranger", "NATIVE_RUNTIME_OWNER=dave"});
    EXPECT_EQ(field(planted, "_UID"), uid_of(kStranger));

    for (const auto& args : {std::vector<std::string>{kCtl, "logs", "--owner", "dave", "--chat", "fg", "-o", "json"},
                             std::vector<std::string>{kCtl, "logs", "--owner", "dave", "-o", "json"}}) {
        const auto logs = run(args);
        ASSERT_EQ(logs.status, 0) << logs.err;
        const auto records = json_lines(logs.out);
        EXPECT_EQ(count_with(records, "MESSAGE", "forged by a stranger"), 0U) << logs.out;
        EXPECT_GE(count_with(records, "MESSAGE_ID", kSessionStarted), 1U) << "the helper's own record: " << logs.out;
        EXPECT_GE(count_with(records, "MESSAGE_ID", kSessionEnded), 1U) << logs.out;
        EXPECT_GE(count_with(records, "_PID", "1"), 1U) << "systemd's records about the unit: " << logs.out;
    }
    // The journalctl line the docs give for one chat ignores it too.
    const auto documented =
        run({"journalctl", "--no-pager", "-o", "json", "_UID=0", "_SYSTEMD_UNIT=native-runtimed.service",
             "NATIVE_RUNTIME_OWNER=dave", "NATIVE_RUNTIME_CHAT=fg", "+", "_PID=1", "UNIT=" + unit, "+",
             "_SYSTEMD_UNIT=" + unit});
    EXPECT_EQ(count_with(json_lines(documented.out), "MESSAGE", "forged by a stranger"), 0U);
    EXPECT_GE(json_lines(documented.out).size(), 2U);
}

TEST(LogsWithLines, ShowTheNewestRecordsReadFromTheTail)
{
    const auto ran = run(as_user(kWorker, ctl_run("dave", "nl", "shell", {"sh", "-c", "true"})));
    ASSERT_EQ(ran.status, 0) << ran.err;
    last_record({std::string("MESSAGE_ID=") + kSessionEnded, "OBJECT_SYSTEMD_UNIT=native-runtime-dave-nl.service"});

    const auto all = json_lines(run({kCtl, "logs", "--owner", "dave", "--chat", "nl", "-o", "json"}).out);
    ASSERT_GE(all.size(), 3U);
    const auto two = json_lines(run({kCtl, "logs", "--owner", "dave", "--chat", "nl", "-n", "2", "-o", "json"}).out);
    ASSERT_EQ(two.size(), 2U);
    EXPECT_EQ(two[0]["__CURSOR"], all[all.size() - 2]["__CURSOR"]);
    EXPECT_EQ(two[1]["__CURSOR"], all.back()["__CURSOR"]);

    const auto short_text = run({kCtl, "logs", "--owner", "dave", "--chat", "nl", "-n", "1"});
    EXPECT_EQ(short_text.status, 0);
    EXPECT_EQ(std::count(short_text.out.begin(), short_text.out.end(), '\n'), 1) << short_text.out;
}

TEST(LogsSince, ShowOnlyRecordsFromThatTimeOn)
{
    const auto ran = run(as_user(kWorker, ctl_run("dave", "sn", "shell", {"sh", "-c", "true"})));
    ASSERT_EQ(ran.status, 0) << ran.err;
    last_record({std::string("MESSAGE_ID=") + kSessionEnded, "OBJECT_SYSTEMD_UNIT=native-runtime-dave-sn.service"});

    const auto recent = run({kCtl, "logs", "--owner", "dave", "--chat", "sn", "--since", "-1h", "-o", "json"});
    EXPECT_GE(json_lines(recent.out).size(), 3U) << recent.err;
    const auto later = std::to_string(std::time(nullptr) + 3600);
    const auto future = run({kCtl, "logs", "--owner", "dave", "--chat", "sn", "--since", "@" + later});
    EXPECT_EQ(future.status, 0) << future.err;
    EXPECT_EQ(future.out, "");
    EXPECT_EQ(run({kCtl, "logs", "--owner", "dave", "--since", "soon"}).status, 64);
}

TEST(LogsFollow, PrintsTheRecordsOfASessionStartedAfterIt)
{
    const std::string unit = "native-runtime-gina-fw.service";
    Background follow({kCtl, "logs", "-f", "--owner", "gina", "--chat", "fw", "-o", "json"});
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const auto ran = run(as_user(kWorker, ctl_run("gina", "fw", "shell", {"sh", "-c", "true"})));
    ASSERT_EQ(ran.status, 0) << ran.err;
    last_record({std::string("MESSAGE_ID=") + kSessionEnded, "OBJECT_SYSTEMD_UNIT=" + unit});
    // `logs -f` wakes on the journal's inotify; give it a moment to print.
    std::this_thread::sleep_for(std::chrono::seconds(2));
    kill(follow.pid(), SIGTERM);
    const auto outcome = follow.wait();
    const auto records = json_lines(outcome.out);
    EXPECT_EQ(count_with(records, "MESSAGE_ID", kSessionStarted), 1U) << outcome.out << outcome.err;
    EXPECT_EQ(count_with(records, "MESSAGE_ID", kSessionEnded), 1U) << outcome.out;
}

TEST(SyscallsTheSandboxRefuses, AreCountedAndLoggedUnderTheSessionsUnitWithoutFlooding)
{
    const std::string unit = "native-runtime-hank-dn.service";
    const std::string loop = std::string("i=0; while [ $i -lt 30 ]; do ") + kProbe + " listen; i=$((i+1)); done";
    const auto ran = run(as_user(kWorker, ctl_run("hank", "dn", "shell", {"sh", "-c", loop})));
    ASSERT_EQ(ran.status, 0) << ran.err;
    // The probe's own view: bind works (positive control), listen is refused.
    std::istringstream lines(ran.out);
    std::string line;
    int refusals = 0;
    int binds = 0;
    while (std::getline(lines, line)) {
        binds += line == "bind=ok" ? 1 : 0;
        refusals += line.rfind("listen=", 0) == 0 && line != "listen=ok" ? 1 : 0;
    }
    EXPECT_EQ(binds, 30) << ran.out;
    EXPECT_EQ(refusals, 30) << ran.out;

    const std::string denied = std::string("MESSAGE_ID=") + kSyscallsDenied;
    const auto summary = last_record({denied, "_SYSTEMD_UNIT=" + unit, "NATIVE_RUNTIME_DENIED_TOTAL=30"});
    EXPECT_EQ(field(summary, "NATIVE_RUNTIME_DENIALS"), "listen=30") << summary.dump();
    EXPECT_EQ(field(summary, "SYSLOG_IDENTIFIER"), "native-runtime-launch");
    EXPECT_EQ(field(summary, "NATIVE_RUNTIME_OWNER"), "hank") << "the unit's LogExtraFields";

    const auto records = journal({denied, "_SYSTEMD_UNIT=" + unit});
    std::size_t single = 0;
    for (const auto& record : records) {
        if (!field(record, "NATIVE_RUNTIME_SYSCALL").empty()) {
            ++single;
            EXPECT_EQ(field(record, "NATIVE_RUNTIME_SYSCALL"), "listen");
            EXPECT_EQ(field(record, "PRIORITY"), "5");
        }
    }
    EXPECT_GE(single, 1U);
    EXPECT_LE(single, 5U) << "rate-limited: 30 refusals, at most 5 records of their own";

    // Where an operator looks: the unit's journal and `logs`.
    EXPECT_EQ(count_with(journal({"-u", unit}), "MESSAGE_ID", kSyscallsDenied), records.size());
    const auto logs = json_lines(run({kCtl, "logs", "--owner", "hank", "--chat", "dn", "-o", "json"}).out);
    EXPECT_EQ(count_with(logs, "MESSAGE_ID", kSyscallsDenied), records.size());

    // Positive control: a session that is refused nothing has no such record.
    const auto quiet = run(as_user(kWorker, ctl_run("hank", "qt", "shell", {"sh", "-c", "true"})));
    ASSERT_EQ(quiet.status, 0) << quiet.err;
    last_record({std::string("MESSAGE_ID=") + kSessionEnded, "OBJECT_SYSTEMD_UNIT=native-runtime-hank-qt.service"});
    EXPECT_TRUE(journal({denied, "_SYSTEMD_UNIT=native-runtime-hank-qt.service"}).empty());
}

TEST(TheInstalledCatalog, IsKnownToJournalctlAfterThePackageInstall)
{
    // systemd's dpkg trigger on /usr/lib/systemd/catalog ran
    // `journalctl --update-catalog` when the package was installed.
    const auto listed = run({"journalctl", "--list-catalog"});
    ASSERT_EQ(listed.status, 0) << listed.err;
    for (const auto* id : {kSessionStarted, kSessionEnded, kSessionRefused, kFileOperationRefused, kSyscallsDenied}) {
        EXPECT_NE(listed.out.find(id), std::string::npos) << id << " missing from journalctl --list-catalog";
    }
    const auto explained =
        run({"journalctl", "--no-pager", "-x", "-n", "1", std::string("MESSAGE_ID=") + kSessionRefused});
    EXPECT_NE(explained.out.find("A request to native-runtimed was refused"), std::string::npos) << explained.out;
}
