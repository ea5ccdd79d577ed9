// SPDX-License-Identifier: Apache-2.0
// Host-auth admission on the real systemd: sessions of a serial adapter take
// turns in arrival order, a stopped waiter or a crashed holder gives its place
// up, and unsafe lock state refuses the session instead of moving elsewhere.
// Each test uses its own owner (a home shared by its sessions, where they
// leave evidence) and its own adapter queue (tests/integration/config.yaml).

#include "fixture.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>

using namespace nr::itest;

namespace {

const std::string kQueueRoot = std::string(kDataDir) + "/native-runtime/.host-auth";

// Tickets in a queue directory: one per session that waits or runs.
int tickets_in(const std::string& queue)
{
    int count = 0;
    if (DIR* dir = opendir((kQueueRoot + "/" + queue).c_str())) {
        while (const auto* entry = readdir(dir)) {
            count += std::string(entry->d_name).rfind("ticket-", 0) == 0 ? 1 : 0;
        }
        closedir(dir);
    }
    return count;
}

// A session that records that it runs, then holds its turn until the test
// creates $HOME/release-<name> (bounded, so a broken test cannot hang), and
// finally appends its name to $HOME/order.
std::unique_ptr<Background> start_holder(const std::string& owner, const std::string& chat, const std::string& adapter)
{
    const std::string script = "touch \"$HOME/running-$1\"; i=0; "
                               "while [ ! -e \"$HOME/release-$1\" ] && [ $i -lt 600 ]; do sleep 0.2; i=$((i+1)); done; "
                               "echo \"$1\" >> \"$HOME/order\"";
    return std::make_unique<Background>(
        as_user(kWorker, ctl_run(owner, chat, adapter, {"sh", "-c", script, "sh", chat})));
}

// A session that only appends its name to $HOME/order once admitted.
std::unique_ptr<Background> start_waiter(const std::string& owner, const std::string& chat, const std::string& adapter)
{
    return std::make_unique<Background>(
        as_user(kWorker, ctl_run(owner, chat, adapter, {"sh", "-c", "echo \"$1\" >> \"$HOME/order\"", "sh", chat})));
}

void release(const std::string& owner, const std::string& chat)
{
    std::ofstream(home_of(owner) + "/release-" + chat) << "go\n";
}

// Ten sessions started at once; each registers in $HOME/active, waits up to
// `rounds` x 0.2 s for company, and prints the most sessions it saw at once.
int peak_of_ten(const std::string& owner, const std::string& adapter, int rounds, int& waited)
{
    const std::string script =
        "d=\"$HOME/active\"; mkdir -p \"$d\"; : > \"$d/$1\"; max=0; i=0; "
        "while [ $i -lt $2 ]; do n=$(ls \"$d\" | wc -l); [ $n -gt $max ] && max=$n; [ $max -ge 2 ] && break; "
        "sleep 0.2; i=$((i+1)); done; rm -f \"$d/$1\"; echo \"peak=$max\"";
    std::vector<std::unique_ptr<Background>> sessions;
    for (int i = 0; i < 10; ++i) {
        // Not "s" + to_string(i): GCC 12 at -O3 reports a false -Wrestrict for it.
        const auto chat = std::string("s").append(std::to_string(i));
        sessions.push_back(std::make_unique<Background>(
            as_user(kWorker, ctl_run(owner, chat, adapter, {"sh", "-c", script, "sh", chat, std::to_string(rounds)}))));
    }
    int peak = 0;
    waited = 0;
    for (auto& session : sessions) {
        const auto outcome = session->wait();
        EXPECT_EQ(outcome.status, 0) << outcome.err;
        peak = std::max(peak, std::stoi(parse_lines(outcome.out)["peak"]));
        waited += outcome.err.find("waiting for host-auth admission") != std::string::npos ? 1 : 0;
    }
    return peak;
}

} // namespace

TEST(AdmissionOfASerialAdapter, RunsOneOfTenSimultaneousSessionsAtATime)
{
    int waited = 0;
    EXPECT_EQ(peak_of_ten("admpeak", "serial-peak", 10, waited), 1);
    EXPECT_GE(waited, 1) << "the worker is told when a session waits";
    int control_waited = 0;
    EXPECT_GE(peak_of_ten("admpeakcontrol", "managed-peak", 150, control_waited), 2)
        << "control: without admission the same sessions overlap";
    EXPECT_EQ(control_waited, 0);
}

TEST(AdmissionOfASerialAdapter, ServesWaitersInArrivalOrder)
{
    const std::string owner = "admorder";
    auto holder = start_holder(owner, "h", "serial-order");
    ASSERT_TRUE(eventually(120, [&] { return exists(home_of(owner) + "/running-h"); }));
    std::vector<std::unique_ptr<Background>> waiters;
    for (int i = 1; i <= 4; ++i) {
        waiters.push_back(start_waiter(owner, std::string("w").append(std::to_string(i)), "serial-order"));
        // Arrival order is the order each one joined the queue.
        ASSERT_TRUE(eventually(120, [&] { return tickets_in("order-queue") == i + 1; })) << "waiter " << i;
    }
    release(owner, "h");
    EXPECT_EQ(holder->wait().status, 0);
    std::vector<std::string> errors;
    for (auto& waiter : waiters) {
        const auto outcome = waiter->wait();
        EXPECT_EQ(outcome.status, 0) << outcome.err;
        errors.push_back(outcome.err);
    }
    EXPECT_EQ(read_file(home_of(owner) + "/order"), "h\nw1\nw2\nw3\nw4\n");
    EXPECT_NE(errors[0].find("waiting for host-auth admission, 1 ahead"), std::string::npos) << errors[0];
    EXPECT_NE(errors[3].find("waiting for host-auth admission, 4 ahead"), std::string::npos) << errors[3];
    EXPECT_NE(errors[3].find("admitted after waiting"), std::string::npos) << errors[3];
    EXPECT_EQ(tickets_in("order-queue"), 0) << "every ticket is removed when its session ends";
}

TEST(AdmissionOfASerialAdapter, StoppingAWaiterLeavesTheHolderRunningAndTheNextOneAdmitted)
{
    const std::string owner = "admcancel";
    auto holder = start_holder(owner, "h", "serial-cancel");
    ASSERT_TRUE(eventually(120, [&] { return exists(home_of(owner) + "/running-h"); }));
    auto first = start_waiter(owner, "w1", "serial-cancel");
    ASSERT_TRUE(eventually(120, [&] { return tickets_in("serial-cancel") == 2; }));
    auto second = start_waiter(owner, "w2", "serial-cancel");
    ASSERT_TRUE(eventually(120, [&] { return tickets_in("serial-cancel") == 3; }));

    const auto stop = run(as_user(kWorker, {kCtl, "stop", "--owner", owner, "--chat", "w1"}));
    EXPECT_EQ(stop.status, 0) << stop.err;
    EXPECT_NE(first->wait().status, 0) << "the stopped waiter never ran";
    EXPECT_EQ(unit_property(unit_of(owner, "h"), "ActiveState"), "active");
    EXPECT_FALSE(exists(home_of(owner) + "/order")) << "nobody was admitted past the running holder";

    release(owner, "h");
    EXPECT_EQ(holder->wait().status, 0);
    EXPECT_EQ(second->wait().status, 0);
    EXPECT_EQ(read_file(home_of(owner) + "/order"), "h\nw2\n");
}

TEST(AdmissionOfASerialAdapter, GivesACrashedHoldersTurnToTheNextSession)
{
    const std::string owner = "admcrash";
    auto holder = start_holder(owner, "h", "serial-crash");
    ASSERT_TRUE(eventually(120, [&] { return exists(home_of(owner) + "/running-h"); }));
    auto waiter = start_waiter(owner, "w", "serial-crash");
    ASSERT_TRUE(eventually(120, [&] { return tickets_in("serial-crash") == 2; }));

    // The launcher holding the turn dies without any chance to clean up.
    const auto kill = run({"systemctl", "kill", "--kill-who=main", "--signal=SIGKILL", unit_of(owner, "h")});
    EXPECT_EQ(kill.status, 0) << kill.err;
    EXPECT_NE(holder->wait().status, 0);
    const auto outcome = waiter->wait();
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(read_file(home_of(owner) + "/order"), "w\n");
}

// ----------------------------------------------------------- unsafe lock state

class AdmissionLockState : public ::testing::Test {
protected:
    // The queue root as the launcher would create it, so each test can put
    // something unsafe where the serial-unsafe queue belongs.
    void SetUp() override
    {
        for (const auto& dir : {std::string(kDataDir) + "/native-runtime", kQueueRoot}) {
            ASSERT_EQ(run({"install", "-d", "-o", kWorker, "-g", kWorker, "-m", "0700", dir}).status, 0);
        }
        run({"rm", "-rf", queue_});
    }
    void TearDown() override { run({"rm", "-rf", queue_}); }

    static Outcome session(const std::string& chat)
    {
        return run(as_user(kWorker, ctl_run("admunsafe", chat, "serial-unsafe", {"sh", "-c", "echo admitted"})));
    }

    const std::string queue_ = kQueueRoot + "/serial-unsafe";
};

TEST_F(AdmissionLockState, ThatIsASymlinkIsRefusedAndNothingIsWrittenAtItsTarget)
{
    const std::string decoy = std::string(kDataDir) + "/admission-decoy";
    ASSERT_EQ(run({"install", "-d", "-o", kWorker, "-g", kWorker, "-m", "0700", decoy}).status, 0);
    ASSERT_EQ(run(as_user(kWorker, {"ln", "-s", decoy, queue_})).status, 0);
    const auto refused = session("symlink");
    EXPECT_EQ(refused.status, 125) << refused.err;
    EXPECT_NE(refused.err.find("InvalidPath"), std::string::npos) << refused.err;
    EXPECT_EQ(refused.out, "");
    EXPECT_EQ(run({"find", decoy, "-mindepth", "1"}).out, "") << "no fallback: the target stays empty";

    ASSERT_EQ(run({"rm", queue_}).status, 0);
    const auto control = session("symlink2");
    EXPECT_EQ(control.status, 0) << control.err;
    EXPECT_EQ(control.out, "admitted\n");
}

TEST_F(AdmissionLockState, ThatOthersCanEnterIsRefused)
{
    ASSERT_EQ(run({"install", "-d", "-o", kWorker, "-g", kWorker, "-m", "0750", queue_}).status, 0);
    const auto refused = session("open");
    EXPECT_EQ(refused.status, 125) << refused.err;
    EXPECT_NE(refused.err.find("InvalidPath"), std::string::npos) << refused.err;

    ASSERT_EQ(run({"chmod", "0700", queue_}).status, 0);
    EXPECT_EQ(session("open2").status, 0) << "control: the same directory, owner-only";
}

TEST_F(AdmissionLockState, OwnedBySomeoneElseIsRefused)
{
    ASSERT_EQ(run({"install", "-d", "-o", kStranger, "-g", kStranger, "-m", "0700", queue_}).status, 0);
    const auto refused = session("foreign");
    EXPECT_EQ(refused.status, 125) << refused.err;
    EXPECT_NE(refused.err.find("InvalidPath"), std::string::npos) << refused.err;

    ASSERT_EQ(run({"chown", std::string(kWorker) + ":" + kWorker, queue_}).status, 0);
    EXPECT_EQ(session("foreign2").status, 0) << "control: the same directory, the session user's";
}

TEST(AdmissionOfASerialAdapter, CountsTheWaitTowardTheRuntimeLimitOfTheWaiter)
{
    // Two adapters configured into one queue: the holder's adapter has the
    // usual limit, the waiter's adapter a short one.
    const std::string owner = "admtimeout";
    auto holder = start_holder(owner, "h", "serial-shared-holder");
    ASSERT_TRUE(eventually(120, [&] { return exists(home_of(owner) + "/running-h"); }));
    const auto waited = run(as_user(kWorker, ctl_run(owner, "w", "serial-shared-waiter", {"sh", "-c", "echo ran"})));
    EXPECT_EQ(waited.status, 124) << "ended by RuntimeMaxSec while waiting: " << waited.err;
    EXPECT_EQ(waited.out, "");
    EXPECT_EQ(unit_property(unit_of(owner, "h"), "ActiveState"), "active");

    release(owner, "h");
    EXPECT_EQ(holder->wait().status, 0);
    const auto control = run(as_user(kWorker, ctl_run(owner, "w2", "serial-shared-waiter", {"sh", "-c", "echo ran"})));
    EXPECT_EQ(control.status, 0) << "control: with nobody ahead the same session runs: " << control.err;
    EXPECT_EQ(control.out, "ran\n");
}

TEST(AdmissionWaitingReports, HaveNoWayInOverTheBus)
{
    // A wait report comes only over the helper channel of the session's
    // own unit (daemon/launch_channels.h): the bus method that once took
    // them is gone, so no caller can make the helper emit SessionWaiting.
    const auto forged = run(
        as_user(kWorker, {"dbus-send", "--system", "--print-reply", "--dest=org.metis.NativeRuntime1",
                          "/org/metis/NativeRuntime1", "org.metis.NativeRuntime1.Launcher.ReportWaiting", "uint32:3"}));
    EXPECT_NE(forged.status, 0);
    EXPECT_NE(forged.err.find("org.freedesktop.DBus.Error.UnknownMethod"), std::string::npos) << forged.err;
    // Control: a session's own launcher's reports get through, as the
    // "ahead" lines ServesWaitersInArrivalOrder checks show.
}
