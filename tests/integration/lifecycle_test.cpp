// SPDX-License-Identifier: Apache-2.0
// A session's life after it starts: stopping it, cancelling one of two,
// resuming a chat, losing the worker or the helper, and a unit whose
// hardening a drop-in weakened. Each runs through the real bus and systemd.

#include "fixture.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

using namespace nr::itest;

namespace {

// Unloaded, so the (owner, chat) may start again: a stopped unit stays
// loaded until the helper has reported its end and dropped its reference.
bool unit_is_gone(const std::string& unit)
{
    return unit_property(unit, "LoadState") == "not-found";
}

std::string random_tag()
{
    std::random_device device;
    return std::to_string(device()) + std::to_string(device());
}

std::string read_text(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// True when some host process has `text` in its command line. Root in the
// harness sees every process, including those inside session PID namespaces.
bool some_process_mentions(const std::string& text)
{
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const auto name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) {
            continue;
        }
        if (read_text(entry.path() / "cmdline").find(text) != std::string::npos) {
            return true;
        }
    }
    return false;
}

// The one child of `parent` (runuser's child is the CLI).
pid_t child_of(pid_t parent)
{
    const auto path = "/proc/" + std::to_string(parent) + "/task/" + std::to_string(parent) + "/children";
    std::istringstream children(read_text(path));
    pid_t child = -1;
    children >> child;
    return child;
}

int ctl_stop(const std::string& owner, const std::string& chat)
{
    return run(as_user(kWorker, {kCtl, "stop", "--owner", owner, "--chat", chat})).status;
}

} // namespace

TEST(StoppingASession, KillsADescendantThatDoubleForkedAndCalledSetsid)
{
    // The daemon's command line carries the tag only after the shell joins
    // its two halves, so the session's own shell never matches it.
    const auto tag = "nr-escapee-" + random_tag();
    const auto half = tag.substr(0, 8);
    const auto rest = tag.substr(8);
    const std::string script = "setsid -f sh -c 'sleep 300; : " + half + "''" + rest + "'; exec sleep 300";
    Background session(as_user(kWorker, ctl_run("alice", "escape", "shell", {"sh", "-c", script})));
    ASSERT_TRUE(eventually(60, [&] { return some_process_mentions(tag); }))
        << "control: the detached descendant runs and is visible from the host";

    EXPECT_EQ(ctl_stop("alice", "escape"), 0);
    EXPECT_TRUE(eventually(60, [&] { return !some_process_mentions(tag); }));
    const auto outcome = session.wait();
    EXPECT_EQ(outcome.status, 128 + SIGTERM) << outcome.err;
}

TEST(CancellingOneOfTwoSessions, LeavesTheOtherRunning)
{
    Background first(as_user(kWorker, ctl_run("alice", "cancela", "shell", {"sh", "-c", "exec sleep 300"})));
    Background second(as_user(kWorker, ctl_run("alice", "cancelb", "shell", {"sh", "-c", "exec sleep 300"})));
    ASSERT_TRUE(eventually(
        60, [] { return unit_is_active(unit_of("alice", "cancela")) && unit_is_active(unit_of("alice", "cancelb")); }))
        << first.wait().err << second.wait().err;

    EXPECT_EQ(ctl_stop("alice", "cancela"), 0);
    EXPECT_TRUE(eventually(60, [] { return !unit_is_active(unit_of("alice", "cancela")); }));
    EXPECT_TRUE(unit_is_active(unit_of("alice", "cancelb")));
    (void)first.wait();

    EXPECT_EQ(ctl_stop("alice", "cancelb"), 0);
    (void)second.wait();
}

TEST(ResumingAChatAfterAnother, FindsItsOwnFilesWhichTheOtherChatNeverSaw)
{
    const auto a_workspace = std::string(kDataDir) + "/native-runtime/resume/chats/a/workspace";
    const auto write_a = run(as_user(kWorker, ctl_run("resume", "a", "shell",
                                                      {"sh", "-c",
                                                       "echo draft > notes.txt && echo a-state > "
                                                       "$HOME/.chat-a-state && pwd"})));
    ASSERT_EQ(write_a.status, 0) << write_a.err;
    EXPECT_EQ(write_a.out, a_workspace + "\n");

    const auto in_b = probe_inside("resume", "b", {"read", a_workspace + "/notes.txt"});
    EXPECT_EQ(in_b.at("read"), "ENOENT") << "chat b must not see chat a's workspace";

    const auto back_in_a =
        run(as_user(kWorker, ctl_run("resume", "a", "shell", {"sh", "-c", "cat notes.txt $HOME/.chat-a-state"})));
    EXPECT_EQ(back_in_a.status, 0) << back_in_a.err;
    EXPECT_EQ(back_in_a.out, "draft\na-state\n");
}

TEST(AWorkerThatDiesMidSession, TakesItsSessionsWithItUnlessTheAdapterKeepsThem)
{
    Background stopped(as_user(kWorker, ctl_run("alice", "orphanstop", "shell", {"sh", "-c", "exec sleep 300"})));
    Background kept(as_user(kWorker, ctl_run("alice", "orphankeep", "shell-kept", {"sh", "-c", "exec sleep 300"})));
    ASSERT_TRUE(eventually(60, [] {
        return unit_is_active(unit_of("alice", "orphanstop")) && unit_is_active(unit_of("alice", "orphankeep"));
    }));

    // Kill both CLIs (the workers) without giving them a chance to stop
    // anything themselves: their bus connections just close.
    const auto stopped_cli = child_of(stopped.pid());
    const auto kept_cli = child_of(kept.pid());
    ASSERT_GT(stopped_cli, 0);
    ASSERT_GT(kept_cli, 0);
    ASSERT_EQ(kill(stopped_cli, SIGKILL), 0);
    ASSERT_EQ(kill(kept_cli, SIGKILL), 0);

    EXPECT_TRUE(eventually(60, [] { return !unit_is_active(unit_of("alice", "orphanstop")); }));
    // Both departures reached the helper together; the kept one is the
    // control that the first was stopped for its worker, not by accident.
    EXPECT_TRUE(unit_is_active(unit_of("alice", "orphankeep")));
    EXPECT_EQ(ctl_stop("alice", "orphankeep"), 0);
    (void)stopped.wait();
    (void)kept.wait();
}

TEST(AHelperKilledMidSession, IsReplacedByOneThatReportsTheSessionsEnd)
{
    Background session(as_user(kWorker, ctl_run("alice", "helpercrash", "shell", {"sh", "-c", "exec sleep 300"})));
    const auto unit = unit_of("alice", "helpercrash");
    // Mid-session: the launcher has its spec. Killed before its Claim, the
    // helper takes the spec with it and the launch fails closed (125).
    ASSERT_TRUE(eventually(60, [&] { return session_is_running(unit); }));

    const auto helper = std::stoi(unit_property("native-runtimed.service", "MainPID"));
    ASSERT_GT(helper, 0);
    ASSERT_EQ(kill(helper, SIGKILL), 0);
    ASSERT_TRUE(eventually(60, [&] {
        const auto now = unit_property("native-runtimed.service", "MainPID");
        return now != std::to_string(helper);
    }));

    // list reads systemd, not the helper; the session is still there.
    const auto listed = run(as_user(kWorker, {kCtl, "list"}));
    EXPECT_NE(listed.out.find(unit), std::string::npos) << listed.out;
    EXPECT_TRUE(unit_is_active(unit));

    // A new helper (bus-activated by stop or by the waiting CLI) stops it
    // and reports the end to the CLI that is still waiting.
    EXPECT_EQ(ctl_stop("alice", "helpercrash"), 0);
    const auto outcome = session.wait();
    EXPECT_EQ(outcome.status, 128 + SIGTERM) << outcome.err;
}

namespace {

// A drop-in that applies to every session unit, as an operator might leave
// behind; removed (and systemd reloaded) when the test ends.
class WeakeningDropIn {
public:
    explicit WeakeningDropIn(const std::string& body)
    {
        std::filesystem::create_directories(kDir);
        std::ofstream(std::string(kDir) + "/50-weaken.conf") << "[Service]\n" << body << "\n";
        reload();
    }
    ~WeakeningDropIn()
    {
        std::filesystem::remove(std::string(kDir) + "/50-weaken.conf");
        reload();
    }
    WeakeningDropIn(const WeakeningDropIn&) = delete;
    WeakeningDropIn& operator=(const WeakeningDropIn&) = delete;
    WeakeningDropIn(WeakeningDropIn&&) = delete;
    WeakeningDropIn& operator=(WeakeningDropIn&&) = delete;

private:
    static void reload() { EXPECT_EQ(run({"systemctl", "daemon-reload"}).status, 0); }
    static constexpr const char* kDir = "/etc/systemd/system/native-runtime-.service.d";
};

} // namespace

TEST(ASessionWhoseHardeningADropInWeakened, IsStoppedBeforeItsCommandRuns)
{
    for (const std::string setting :
         {"NoNewPrivileges=no", "MemoryMax=infinity", "IPAddressDeny=", "ProtectSystem=no", "ReadWritePaths=/etc",
          "PrivateUsers=no", "SystemCallFilter=", "RestrictAddressFamilies="}) {
        SCOPED_TRACE(setting);
        const auto marker = std::string(kDataDir) + "/native-runtime/weak/home/ran";
        ASSERT_TRUE(eventually(60, [] { return unit_is_gone(unit_of("weak", "c")); }));
        {
            const WeakeningDropIn weakening(setting);
            const auto outcome = run(as_user(kWorker, ctl_run("weak", "c", "shell", {"sh", "-c", "touch $HOME/ran"})));
            EXPECT_EQ(outcome.status, 65) << outcome.err;
            EXPECT_NE(outcome.err.find("org.metis.NativeRuntime1.Error.HardeningNotApplied"), std::string::npos)
                << outcome.err;
            EXPECT_NE(outcome.err.find(setting.substr(0, setting.find('='))), std::string::npos) << outcome.err;
            EXPECT_TRUE(eventually(60, [] { return unit_is_gone(unit_of("weak", "c")); }));
            EXPECT_FALSE(std::filesystem::exists(marker));
        }
        // Control: without the drop-in the same command runs.
        const auto control = run(as_user(kWorker, ctl_run("weak", "c", "shell", {"sh", "-c", "touch $HOME/ran"})));
        EXPECT_EQ(control.status, 0) << control.err;
        EXPECT_TRUE(std::filesystem::exists(marker));
        std::filesystem::remove(marker);
    }
}

TEST(ASessionUnitGivenAnotherDescriptorByADropIn, IsRefusedByItsLauncherWhereSystemdPassesIt)
{
    // OpenFile= (systemd 253 and later) passes a descriptor the helper did
    // not plan; the hardening read-back does not look for it, the launcher
    // does: it takes the helper channel alone, or nothing at all.
    const int major = systemd_major();
    ASSERT_GE(major, 247) << "no systemd version read";
    const auto marker = std::string(kDataDir) + "/native-runtime/weak/home/ran-with-a-descriptor";
    ASSERT_TRUE(eventually(60, [] { return unit_is_gone(unit_of("weak", "fd")); }));
    {
        const WeakeningDropIn extra("OpenFile=/etc/os-release:nr-extra:read-only");
        const auto outcome = run(as_user(kWorker, ctl_run("weak", "fd", "shell", {"sh", "-c", "touch " + marker})));
        if (major >= 253) {
            EXPECT_EQ(outcome.status, 125) << outcome.err;
            EXPECT_TRUE(contains(outcome.err, "systemd passed 2 descriptors; the launcher takes only") ||
                        contains(outcome.err, "to native-runtime-claim, which takes none"))
                << outcome.err;
            EXPECT_FALSE(std::filesystem::exists(marker));
        } else {
            // systemd 252 does not know OpenFile=: it passes nothing, and the
            // session runs (the refusal itself is
            // TheClaimShim.RefusesToStartWithAPassedDescriptor).
            EXPECT_EQ(outcome.status, 0) << outcome.err;
            std::filesystem::remove(marker);
        }
        EXPECT_TRUE(eventually(60, [] { return unit_is_gone(unit_of("weak", "fd")); }));
    }
    // Control: without the drop-in the same command runs.
    const auto control = run(as_user(kWorker, ctl_run("weak", "fd", "shell", {"sh", "-c", "touch " + marker})));
    EXPECT_EQ(control.status, 0) << control.err;
    EXPECT_TRUE(std::filesystem::exists(marker));
    std::filesystem::remove(marker);
}
