// SPDX-License-Identifier: Apache-2.0
// End-to-end guarantees of one session, each shown by a real run through
// the bus, systemd and bwrap as an unprivileged worker, with a positive
// control outside the sandbox wherever a probe reports a refusal.

#include "fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <sstream>
#include <sys/types.h>
#include <thread>
#include <unistd.h>

using namespace nr::itest;

TEST(ASessionsOutput, ArrivesOnTheWorkersStdoutAndTheCliExitsZero)
{
    const auto outcome =
        run(as_user(kWorker, ctl_run("alice", "out", "shell", {"sh", "-c", "echo hello from inside"})));
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(outcome.out, "hello from inside\n");
}

TEST(ACommandThatExitsWithThree, MakesTheCliExitWithThree)
{
    const auto outcome =
        run(as_user(kWorker, ctl_run("alice", "three", "shell", {"sh", "-c", "echo partial; exit 3"})));
    EXPECT_EQ(outcome.status, 3) << outcome.err;
    EXPECT_EQ(outcome.out, "partial\n");
}

TEST(ACommandKilledBySignal, MakesTheCliExitWith128PlusTheSignal)
{
    const auto outcome = run(as_user(kWorker, ctl_run("alice", "signal", "shell", {"sh", "-c", "kill -TERM $$"})));
    EXPECT_EQ(outcome.status, 128 + SIGTERM) << outcome.err;
}

TEST(ARunningSessionUnit, ShowsThePlannedHardeningAndRefusesADuplicate)
{
    const std::string unit = "native-runtime-alice-long.service";
    Background session(as_user(kWorker, ctl_run("alice", "long", "shell", {"sh", "-c", "sleep 60"})));
    ASSERT_TRUE(eventually(30, [&] { return unit_is_active(unit); }));

    const auto uid = run({"id", "-u", kWorker}).out;
    EXPECT_EQ(unit_property(unit, "User") + "\n", uid);
    EXPECT_EQ(unit_property(unit, "NoNewPrivileges"), "yes");
    EXPECT_EQ(unit_property(unit, "ProtectProc"), "invisible");
    EXPECT_EQ(unit_property(unit, "ProcSubset"), "all");
    EXPECT_EQ(unit_property(unit, "CapabilityBoundingSet"), "");
    EXPECT_EQ(unit_property(unit, "KillMode"), "control-group");
    EXPECT_EQ(unit_property(unit, "Slice"), "nativeruntime-alice.slice");

    const auto duplicate = run(as_user(kWorker, ctl_run("alice", "long", "shell", {"sh", "-c", "true"})));
    EXPECT_EQ(duplicate.status, 65);
    EXPECT_NE(duplicate.err.find("org.metis.NativeRuntime1.Error.SessionBusy"), std::string::npos) << duplicate.err;

    const auto stop = run(as_user(kWorker, {kCtl, "stop", "--owner", "alice", "--chat", "long"}));
    EXPECT_EQ(stop.status, 0) << stop.err;
    const auto ended = session.wait();
    // systemd stops the unit with SIGTERM; the first session's end must still
    // be reported after the refused duplicate.
    EXPECT_EQ(ended.status, 128 + SIGTERM) << ended.err;
    EXPECT_TRUE(eventually(30, [&] { return !unit_is_active(unit); }));
}

TEST(AnotherOwnersHome, IsAbsentFromTheSessionEvenForTheSameUid)
{
    const std::string secret = std::string(kDataDir) + "/native-runtime/bob/home/secret.txt";
    EXPECT_EQ(probe_outside(kWorker, {"read", secret})["read"], "ok") << "positive control: the worker can read it";
    EXPECT_EQ(probe_inside("alice", "home", {"read", secret})["read"], "ENOENT");
}

TEST(TheSessionsProc, ListsOnlyTheSandboxsOwnProcesses)
{
    auto outside = probe_outside(kWorker, {"pids"});
    EXPECT_GT(std::stoi(outside["pid_count"]), 5) << "positive control: the host has many processes";
    auto inside = probe_inside("alice", "proc", {"pids"});
    // bwrap's init as PID 1 and the probe itself. Seeing PID 1 is what
    // shows a new PID namespace: without one, the unit's ProtectProc and the
    // user namespace still hide other processes, but the probe keeps its
    // host PID.
    EXPECT_LE(std::stoi(inside["pid_count"]), 2) << inside["pids"];
    EXPECT_NE(("," + inside["pids"] + ",").find(",1,"), std::string::npos) << inside["pids"];
}

TEST(ACanaryInTheWorkersEnvironment, IsFoundNowhereUnderTheSessionsProc)
{
    const auto canary = random_key("nr-canary-");
    const auto control =
        run(as_user(kWorker, {"env", "NR_WORKER_CANARY=" + canary, kProbe, "find-canary", hex(canary)}));
    EXPECT_NE(parse_lines(control.out)["canary_found"], "none") << "positive control: the probe finds an env canary";

    const auto inside =
        run(as_user(kWorker, {"env", "NR_WORKER_CANARY=" + canary, kCtl, "run", "--owner", "alice", "--chat", "canary",
                              "--adapter", "probe", "--", "nr-probe", "find-canary", hex(canary)}));
    EXPECT_EQ(inside.status, 0) << inside.err;
    EXPECT_EQ(parse_lines(inside.out)["canary_found"], "none");
}

TEST(StreamListeners, AreRefusedInsideAndWorkOutside)
{
    EXPECT_EQ(probe_outside(kWorker, {"listen"})["listen"], "ok") << "positive control";
    auto inside = probe_inside("alice", "listen", {"listen"});
    EXPECT_EQ(inside["bind"], "ok") << "the socket itself is allowed, only listening is not";
    EXPECT_EQ(inside["listen"], "EPERM");
}

TEST(IoUring, IsRefusedInsideAndWorksOutside)
{
    EXPECT_EQ(probe_outside(kWorker, {"io-uring"})["io_uring_setup"], "ok") << "positive control";
    EXPECT_EQ(probe_inside("alice", "uring", {"io-uring"})["io_uring_setup"], "EPERM");
}

TEST(TheSessionsProcess, HasNoCapabilitiesAndNoNewPrivileges)
{
    auto control = probe_outside("root", {"status"});
    EXPECT_NE(control["CapEff"], "0000000000000000") << "positive control: root outside has capabilities";
    EXPECT_EQ(control["NoNewPrivs"], "0");
    auto inside = probe_inside("alice", "caps", {"status"});
    EXPECT_EQ(inside["NoNewPrivs"], "1");
    EXPECT_EQ(inside["CapEff"], "0000000000000000");
    EXPECT_EQ(inside["CapPrm"], "0000000000000000");
    EXPECT_EQ(inside["CapBnd"], "0000000000000000");
    EXPECT_EQ(inside["CapAmb"], "0000000000000000");
}

// The stack every system call of the agent passes: systemd's filters for
// SystemCallArchitectures=native (one), the unit's syscall deny list (one)
// and RestrictAddressFamilies= (two), the launcher's supervised filter and
// the program bwrap loads. No filter reads an argument of a hot call (the
// unit used to have 17 filters, one of which read openat's mode).
// docs/security-model.md, "One cacheable filter stack".
TEST(TheSessionsProcess, RunsUnderExactlySixSeccompFilters)
{
    auto control = probe_outside(kWorker, {"status"});
    EXPECT_EQ(control["Seccomp_filters"], "0") << "positive control: the field is read and the worker has none";
    auto inside = probe_inside("alice", "filters", {"status"});
    EXPECT_EQ(inside["Seccomp"], "2");
    EXPECT_EQ(inside["Seccomp_filters"], "6");
}

TEST(ADescriptorTheWorkerLeftOpen, IsNotOpenInsideTheSession)
{
    const int leaked = open("/etc/hostname", O_RDONLY | O_CLOEXEC);
    ASSERT_GE(leaked, 0);
    auto control = probe_outside(kWorker, {"fds"}, leaking_fd7(leaked));
    EXPECT_NE(("," + control["fds"] + ",").find(",7,"), std::string::npos)
        << "positive control: fd 7 reaches a child of the worker: " << control["fds"];
    auto inside = probe_inside("alice", "fds", {"fds"}, leaking_fd7(leaked));
    close(leaked);
    EXPECT_EQ(("," + inside["fds"] + ",").find(",7,"), std::string::npos) << inside["fds"];
    // stdio plus the descriptor the probe uses to list /proc/self/fd.
    EXPECT_EQ(inside["fds"], "0,1,2,3");
}

TEST(ACallerOutsideTheConfiguredUsers, IsRefusedByTheHelperWithAccessDenied)
{
    const auto outcome = run(as_user(kStranger, ctl_run("alice", "stranger", "shell", {"sh", "-c", "echo ran"})));
    EXPECT_EQ(outcome.status, 65);
    EXPECT_EQ(outcome.out, "");
    EXPECT_NE(outcome.err.find("org.metis.NativeRuntime1.Error.AccessDenied"), std::string::npos) << outcome.err;
}

TEST(ACallerOutsideTheBusPolicyGroup, IsRefusedByTheBroker)
{
    const auto outcome = run(as_user(kOutsider, ctl_run("alice", "outsider", "shell", {"sh", "-c", "echo ran"})));
    EXPECT_NE(outcome.status, 0);
    EXPECT_EQ(outcome.out, "");
    EXPECT_NE(outcome.err.find("org.freedesktop.DBus.Error.AccessDenied"), std::string::npos) << outcome.err;
}

TEST(ARootCallerWithoutARunAsUser, IsRefusedBecauseSessionsNeverRunAsRoot)
{
    const auto outcome = run(ctl_run("alice", "rootless", "shell", {"sh", "-c", "id -u"}));
    EXPECT_EQ(outcome.status, 65);
    EXPECT_EQ(outcome.out, "");
    EXPECT_NE(outcome.err.find("org.metis.NativeRuntime1.Error.AccessDenied"), std::string::npos) << outcome.err;
}

TEST(ARootCallerNamingAnAllowedRunAsUser, GetsASessionRunningAsThatUser)
{
    const auto outcome = run({kCtl, "run", "--owner", "alice", "--chat", "runas", "--adapter", "shell", "--run-as",
                              kWorker, "--", "sh", "-c", "id -u"});
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(outcome.out, run({"id", "-u", kWorker}).out);
}

namespace {

// How often systemd has started the helper in this boot, from its
// "Started unit" journal entries (the unit itself is garbage-collected
// when idle, so its own properties do not survive).
int helper_activations()
{
    const auto listed = run({"journalctl", "-b", "-q", "-o", "cat", "-u", "native-runtimed.service",
                             "MESSAGE_ID=39f53479d3a045ac8e11786248231fbf"});
    return static_cast<int>(std::count(listed.out.begin(), listed.out.end(), '\n'));
}

// The test configuration with its idle_timeout_sec line (3 s) replaced by
// `line` ("" takes the key out).
std::string config_with_idle_timeout_line(const std::string& line)
{
    auto text = HelperConfigForATest::current();
    const std::string idle = "idle_timeout_sec: 3\n";
    const auto at = text.find(idle);
    EXPECT_NE(at, std::string::npos) << "the test configuration's idle_timeout_sec changed";
    if (at != std::string::npos) {
        text.replace(at, idle.size(), line);
    }
    return text;
}

// Whether a stream socket of process PID has at least `bytes` waiting to
// be read (ss's Recv-Q): how the test knows a call reached a stopped
// helper. Its sockets are in its own network namespace (PrivateNetwork=yes).
bool has_unread_input(const std::string& pid, long bytes)
{
    std::istringstream lines(run({"nsenter", "--net=/proc/" + pid + "/ns/net", "ss", "-H", "-x", "-p"}).out);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.find("pid=" + pid + ",") == std::string::npos) {
            continue;
        }
        std::istringstream fields(line);
        std::string netid;
        std::string state;
        long unread = 0;
        if (fields >> netid >> state >> unread && netid == "u_str" && unread >= bytes) {
            return true;
        }
    }
    return false;
}

} // namespace

TEST(TheHelper, ExitsWhenIdleAndIsActivatedAgainByTheNextCall)
{
    const std::string helper = "native-runtimed.service";
    const auto first = run(as_user(kWorker, ctl_run("alice", "idle1", "shell", {"sh", "-c", "true"})));
    ASSERT_EQ(first.status, 0) << first.err;
    // idle_timeout_sec is 3 in the test configuration.
    ASSERT_TRUE(eventually(60, [&] { return !unit_is_active(helper); })) << "the helper never went idle";
    const int activations = helper_activations();
    ASSERT_GE(activations, 1);

    const auto second = run(as_user(kWorker, ctl_run("alice", "idle2", "shell", {"sh", "-c", "echo again"})));
    EXPECT_EQ(second.status, 0) << second.err;
    EXPECT_EQ(second.out, "again\n");
    EXPECT_TRUE(eventually(10, [&] { return helper_activations() == activations + 1; }))
        << "the second call was served by a newly activated helper";
}

// The default: no idle_timeout_sec, and the helper that served a session is
// still the one running several idle timeouts of the test configuration
// later (TheHelper.ExitsWhenIdle... is the control: with 3 s it goes).
TEST(TheHelperWithoutAnIdleTimeout, StaysAfterItsLastCall)
{
    const std::string helper = "native-runtimed.service";
    const HelperConfigForATest config(config_with_idle_timeout_line(""));
    const auto ran = run(as_user(kWorker, ctl_run("alice", "resident", "shell", {"sh", "-c", "echo ran"})));
    ASSERT_EQ(ran.status, 0) << ran.err;
    const auto served_by = unit_property(helper, "MainPID");
    ASSERT_NE(served_by, "0");
    std::this_thread::sleep_for(std::chrono::seconds(12));
    EXPECT_EQ(unit_property(helper, "ActiveState"), "active");
    EXPECT_EQ(unit_property(helper, "MainPID"), served_by);
}

namespace {

constexpr const char* kHelperUnit = "native-runtimed.service";

// The helper, activated by a property read, and its main PID.
std::string activated_helper()
{
    EXPECT_EQ(run({"busctl", "--system", "get-property", "org.metis.NativeRuntime1", "/org/metis/NativeRuntime1",
                   "org.metis.NativeRuntime1.Manager", "Version"})
                  .status,
              0);
    return unit_property(kHelperUnit, "MainPID");
}

// The helper `exiting` is held (SIGSTOP) with a SIGTERM pending until the
// worker's StartSession sits in its socket: on SIGCONT it decides to exit
// with the call unread, as an idle helper does when a call comes in its
// last moment. The start is refused, untouched, and the CLI makes it again
// on the next helper.
void expect_start_refused_by_exiting_helper_and_run_on_the_next(const std::string& exiting)
{
    ASSERT_NE(exiting, "0");
    const auto pid = static_cast<pid_t>(std::stol(exiting));
    ASSERT_EQ(::kill(pid, SIGSTOP), 0);
    ASSERT_EQ(::kill(pid, SIGTERM), 0);
    // The helper also receives systemd's unit signals and bus departures,
    // a few hundred bytes each: a start larger than any of them (an unused
    // 16 KiB argument) is what the wait below looks for.
    constexpr long kStartBytes = 16 * 1024;
    Background session(as_user(
        kWorker, ctl_run("alice", "exiting", "shell",
                         {"sh", "-c", "echo served", std::string(static_cast<std::size_t>(kStartBytes), 'x')})));
    const bool reached = eventually(60, [&] { return has_unread_input(exiting, kStartBytes); });
    ASSERT_EQ(::kill(pid, SIGCONT), 0);
    ASSERT_TRUE(reached) << "control: the start never reached the held helper";

    const auto outcome = session.wait();
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(outcome.out, "served\n");
    // The refusal comes first in StartSession: nothing was planned or started.
    std::string refusals;
    EXPECT_TRUE(eventually(10,
                           [&] {
                               refusals =
                                   run({"journalctl", "-q", "-o", "cat", "_PID=" + exiting,
                                        "NATIVE_RUNTIME_ERROR=HelperStopping", "NATIVE_RUNTIME_METHOD=StartSession"})
                                       .out;
                               return refusals.find("refused StartSession") != std::string::npos;
                           }))
        << "the exiting helper did not refuse the start: "
        << run({"journalctl", "-q", "-o", "cat", "_PID=" + exiting}).out;
    EXPECT_NE(unit_property(kHelperUnit, "MainPID"), exiting) << "the session was not served by a new helper";
}

} // namespace

// systemd stops a Type=dbus helper as soon as it gives up its bus name, so
// a start that reaches it in the moment between its decision to exit and
// that release cannot be served there.
TEST(AStartThatReachesAnExitingHelper, IsRefusedUntouchedAndTheCliRunsItOnTheNextHelper)
{
    // Long enough that the helper cannot go idle by itself meanwhile.
    const HelperConfigForATest config(config_with_idle_timeout_line("idle_timeout_sec: 600\n"));
    expect_start_refused_by_exiting_helper_and_run_on_the_next(activated_helper());
}

// A helper runs its canary at start when none passed for this boot and
// config, and a start waits for the verdict. A start still waiting when the
// helper begins to exit was not planned either: it must be refused the same
// way (HelperStopping), never as a failed preflight, which the CLI would not
// make again. (The first full run for issue 48 met this by chance: the held
// helper had not reached its loop, so it read the start before the signal.)
// Here the order is made: the canary's processes are frozen (SIGSTOP) so
// its verdict cannot come, the helper reads the start, and only then gets
// its SIGTERM.
TEST(AStartWaitingForTheCanaryOfAnExitingHelper, IsRefusedUntouchedAndTheCliRunsItOnTheNextHelper)
{
    const std::string canary = "native-runtime-preflight.service";
    const HelperConfigForATest config(config_with_idle_timeout_line("idle_timeout_sec: 600\n"));
    // The canary may not have started yet when it is frozen, or may have
    // passed already: a few tries, each from a fresh helper with no pass on
    // record, to freeze one that runs.
    std::string helper;
    std::string state;
    for (int attempt = 0; attempt < 5; ++attempt) {
        stop_helper();
        std::filesystem::remove("/var/lib/native-runtime/preflight-canary");
        helper = activated_helper();
        ASSERT_NE(helper, "0");
        (void)eventually(10, [&] { return unit_property(canary, "MainPID") != "0"; });
        run({"systemctl", "kill", "--signal=SIGSTOP", canary});
        state = unit_property(canary, "ActiveState");
        if (state == "active" || state == "activating") {
            break;
        }
    }
    ASSERT_TRUE(state == "active" || state == "activating")
        << "control: the canary was frozen running, it was " << state;
    const auto pid = static_cast<pid_t>(std::stol(helper));
    // Held while the start arrives, so that the wait below can see it
    // arrive (a start larger than the helper's other traffic) and leave.
    constexpr long kStartBytes = 16 * 1024;
    ASSERT_EQ(::kill(pid, SIGSTOP), 0);
    Background session(as_user(
        kWorker, ctl_run("alice", "canary-wait", "shell",
                         {"sh", "-c", "echo served", std::string(static_cast<std::size_t>(kStartBytes), 'x')})));
    const bool arrived = eventually(60, [&] { return has_unread_input(helper, kStartBytes); });
    ASSERT_EQ(::kill(pid, SIGCONT), 0);
    ASSERT_TRUE(arrived) << "control: the start never reached the held helper";
    const bool read = eventually(10, [&] { return !has_unread_input(helper, kStartBytes); });
    EXPECT_TRUE(read) << "the helper did not read the start";
    ASSERT_EQ(::kill(pid, SIGTERM), 0);

    const auto outcome = session.wait();
    run({"systemctl", "kill", "--signal=SIGCONT", canary});
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(outcome.out, "served\n");
    std::string refusals;
    EXPECT_TRUE(eventually(10,
                           [&] {
                               refusals =
                                   run({"journalctl", "-q", "-o", "cat", "_PID=" + helper,
                                        "NATIVE_RUNTIME_ERROR=HelperStopping", "NATIVE_RUNTIME_METHOD=StartSession"})
                                       .out;
                               return refusals.find("before its canary ended") != std::string::npos;
                           }))
        << "the exiting helper did not refuse the waiting start: "
        << run({"journalctl", "-q", "-o", "cat", "_PID=" + helper}).out;
    EXPECT_NE(unit_property(kHelperUnit, "MainPID"), helper) << "the session was not served by a new helper";
}
