// SPDX-License-Identifier: Apache-2.0
// Hardening of the mount plan and of the launch hand-over:
// the sandbox's own root is read-only, a requested workspace is bound from
// the directory the helper checked, and a claim token read from a unit's
// ExecStart= is worthless to anyone but that unit's launcher.

#include "fixture.h"

#include <gtest/gtest.h>

#include <sys/mount.h>
#include <sys/stat.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

using namespace nr::itest;

namespace {

void must(const std::vector<std::string>& argv)
{
    const auto outcome = run(argv);
    ASSERT_EQ(outcome.status, 0) << argv.front() << ": " << outcome.err;
}

std::string default_workspace(const std::string& owner, const std::string& chat)
{
    return std::string(kDataDir) + "/native-runtime/" + owner + "/chats/" + chat + "/workspace";
}

} // namespace

// ------------------------------------------------------ read-only root

TEST(TheSandboxRoot, IsReadOnlyEverywhereButTheWorkspaceHomeTmpAndDevShm)
{
    // Positive controls first: the writable places stay writable.
    const auto workspace =
        probe_inside("alice", "ro-root-ws", {"write", default_workspace("alice", "ro-root-ws") + "/f"});
    EXPECT_EQ(workspace.at("write"), "ok");
    EXPECT_EQ(probe_inside("alice", "ro-root-home", {"write", std::string(kDataDir) + "/native-runtime/alice/home/f"})
                  .at("write"),
              "ok");
    EXPECT_EQ(probe_inside("alice", "ro-root-tmp", {"write", "/tmp/f"}).at("write"), "ok");
    EXPECT_EQ(probe_inside("alice", "ro-root-shm", {"write", "/dev/shm/f"}).at("write"), "ok");
    // The root itself, directories bwrap created on it for mount points
    // (/etc for the /etc/* file grants, /var and the data dir's ancestors
    // for the home and workspace binds), a read-only bind (/usr) and /dev.
    int i = 0;
    const std::vector<std::string> dirs{
        "", "/etc", "/var", "/var/lib", std::string(kDataDir) + "/native-runtime/alice", "/usr", "/dev"};
    for (const auto& dir : dirs) {
        SCOPED_TRACE(dir + "/nr-ro-probe");
        const auto inside = probe_inside("alice", "ro-root-" + std::to_string(i++), {"write", dir + "/nr-ro-probe"});
        EXPECT_EQ(inside.at("write"), "EROFS");
    }
}

// ------------------------------------------------ workspace bind race

namespace {

constexpr const char* kRaceRoot = "/var/lib/nr-ws-race";

struct RaceCounts {
    int ran = 0;
    int refused_by_helper = 0;
    int refused_after_check = 0;
};

// Starts sessions on `ws` while the worker swaps it with `candidate` in a
// loop, swapped a quarter of the time: a launch looks at the name four times
// (the helper, systemd's ReadWritePaths=, the launcher, bwrap), so about a
// third of the launches pass all four and run, a quarter meet the swap at the
// helper and the rest after its check. Swapped half of the time, about one
// launch in sixteen could run, and a sanitizer run of 22 launches saw none
// run (CI, after issue 30 added the ReadWritePaths= look). Fails the
// test if a session ever sees anything but the marker of the directory the
// helper accepts.
RaceCounts race_sessions(const std::string& ws, const std::string& candidate, const std::string& chat)
{
    RaceCounts counts;
    constexpr const char* kSwappedUsPerMs = "250";
    Background swapper(as_user(kWorker, {kProbe, "exchange-loop", ws, candidate, "60", kSwappedUsPerMs}));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(40);
    for (int i = 0; i < 200 && std::chrono::steady_clock::now() < deadline; ++i) {
        const auto outcome = run(
            as_user(kWorker, {kCtl, "run", "--owner", "alice", "--chat", chat, "--adapter", "shell", "--workspace", ws,
                              "--", "sh", "-c", "cat marker secret.txt 2>/dev/null; ls /proc/self/fd | wc -l"}));
        if (outcome.status == 0) {
            // fds 0-2 plus the one ls opens: the checked directory's
            // descriptor did not reach the session.
            EXPECT_EQ(outcome.out, "the-checked-workspace\n4\n") << "iteration " << i;
            ++counts.ran;
        } else if (outcome.err.find("org.metis.NativeRuntime1.Error.InvalidPath") != std::string::npos) {
            ++counts.refused_by_helper; // the helper saw the swapped-in candidate
        } else {
            // The helper checked the real directory, then the name changed:
            // the launcher (or bwrap's own check of the descriptor) ended it.
            ++counts.refused_after_check;
            // bwrap resolves the descriptor's path once more to mount it and
            // compares the mount with the descriptor: a swapped name makes
            // that mount fail or bwrap die ("Race condition binding dirfd").
            // Earlier still, systemd resolves the name for the unit's
            // ReadWritePaths= and fails the unit's namespace set-up when it
            // is mid-swap: exit status 226 (EXIT_NAMESPACE), before the
            // launcher runs.
            constexpr int kSystemdNamespaceSetupFailed = 226;
            EXPECT_TRUE(outcome.err.find("native-runtime-launch: InvalidPath") != std::string::npos ||
                        outcome.err.find("bwrap: ") != std::string::npos ||
                        outcome.status == kSystemdNamespaceSetupFailed)
                << outcome.status << ": " << outcome.err;
        }
        if (::testing::Test::HasFailure()) {
            ADD_FAILURE() << "iteration " << i << " (" << outcome.status << "):\n" << outcome.out << outcome.err;
            break;
        }
        if (counts.ran >= 3 && counts.refused_after_check >= 3 && counts.refused_by_helper >= 1) {
            break;
        }
    }
    std::cout << "ran " << counts.ran << ", refused by the helper " << counts.refused_by_helper
              << ", refused after the check " << counts.refused_after_check << '\n';
    return counts;
}

class ARequestedWorkspaceSwappedInALoop : public ::testing::Test {
protected:
    void SetUp() override
    {
        const std::string root = kRaceRoot;
        run({"rm", "-rf", root});
        must({"install", "-d", "-m", "0755", root});
        must({"install", "-d", "-o", kWorker, "-m", "0700", root + "/parent"});
        must({"install", "-d", "-o", kWorker, "-m", "0700", root + "/parent/ws"});
        must(
            {"runuser", "-u", kWorker, "--", "sh", "-c", "echo the-checked-workspace > " + root + "/parent/ws/marker"});
    }
    void TearDown() override { run({"rm", "-rf", kRaceRoot}); }
};

} // namespace

TEST_F(ARequestedWorkspaceSwappedInALoop, WithASymlinkToAnotherOwnersHomeNeverMountsThatHome)
{
    // A symlink the helper refuses, to another owner's home of the same
    // UID (under data_dir, never mounted for alice). Control: the worker
    // reads bob's secret through it outside.
    const std::string evil = std::string(kRaceRoot) + "/parent/evil";
    // Relative, so that it also resolves under bwrap's /oldroot.
    must({"runuser", "-u", kWorker, "--", "ln", "-sfn", "../../nr-app-data/native-runtime/bob/home", evil});
    ASSERT_EQ(run(as_user(kWorker, {"cat", evil + "/secret.txt"})).out, "bob-secret\n");

    const auto counts = race_sessions(std::string(kRaceRoot) + "/parent/ws", evil, "race-link");
    // The race was really run: launches passed the helper's check and met
    // the swapped name afterwards, and others ran in the real workspace.
    EXPECT_GE(counts.ran, 1);
    EXPECT_GE(counts.refused_after_check, 1);
}

TEST_F(ARequestedWorkspaceSwappedInALoop, WithAnotherDirectoryNeverMountsThatDirectory)
{
    // A real directory of the worker that the helper refuses (group-
    // writable), which a walk without symlinks alone would accept: only the
    // identity check tells it from the checked one.
    const std::string other = std::string(kRaceRoot) + "/parent/other";
    must({"install", "-d", "-o", kWorker, "-m", "0770", other});
    must({"runuser", "-u", kWorker, "--", "sh", "-c", "echo swapped-in > " + other + "/marker"});

    const auto counts = race_sessions(std::string(kRaceRoot) + "/parent/ws", other, "race-dir");
    EXPECT_GE(counts.ran, 1);
    EXPECT_GE(counts.refused_after_check, 1);
}

// ------------------------------------------------------ stolen claims

namespace {

constexpr const char* kSlowLauncher = "/usr/libexec/native-runtime/tests/nr-launch-slow";
constexpr int kLauncherDelaySec = 8;

// Puts the session unit's ExecStart (native-runtime-claim on systemd < 257,
// the launcher itself on later ones) behind a wrapper that waits before it
// execs the real binary, so the session's token is live (registered,
// unclaimed) long enough for the test to try it. Bind-mounted over the
// installed path in the harness's mount namespace, removed again at the end.
class AStolenClaimToken : public ::testing::Test {
protected:
    void SetUp() override
    {
        must({"install", "-m", "0755", exec_start_, kRealLauncherCopy});
        {
            std::ofstream wrapper(kSlowLauncher);
            wrapper << "#!/bin/sh\nsleep " << kLauncherDelaySec << "\nexec " << kRealLauncherCopy << " \"$@\"\n";
        }
        must({"chmod", "0755", kSlowLauncher});
        ASSERT_EQ(mount(kSlowLauncher, exec_start_, nullptr, MS_BIND, nullptr), 0);
        mounted_ = true;
    }
    void TearDown() override
    {
        if (mounted_) {
            umount2(exec_start_, MNT_DETACH);
        }
        std::remove(kSlowLauncher);
        std::remove(kRealLauncherCopy);
    }

private:
    const char* exec_start_ = systemd_major() >= 257 ? kLauncher : kClaimShim;
    bool mounted_ = false;
};

// dbus-send prints the error name, so a refusal by the helper
// (org.metis...AccessDenied) is told apart from one by the broker's policy.
std::vector<std::string> dbus_send_claim(const std::string& token)
{
    return {"dbus-send",
            "--system",
            "--print-reply",
            "--dest=org.metis.NativeRuntime1",
            "/org/metis/NativeRuntime1",
            "org.metis.NativeRuntime1.Launcher.Claim",
            "string:" + token};
}

// Every cgroup.procs of the unit's cgroup, whichever hierarchies exist.
std::string join_unit_cgroup(const std::string& unit)
{
    const auto group = unit_property(unit, "ControlGroup");
    std::string script;
    for (const std::string& base :
         std::vector<std::string>{"/sys/fs/cgroup", "/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified"}) {
        const auto procs = base + group + "/cgroup.procs";
        script += "if [ -e " + procs + " ]; then echo $$ > " + procs + " || exit 97; fi; ";
    }
    return script;
}

} // namespace

TEST_F(AStolenClaimToken, IsRefusedFromAnotherUnitAndAnotherUidWhileTheRealLauncherStillClaimsIt)
{
    const std::string unit = "native-runtime-alice-steal.service";
    Background session(as_user(kWorker, ctl_run("alice", "steal", "shell", {"sh", "-c", "echo ran-after-the-theft"})));
    std::string token;
    ASSERT_TRUE(eventually(10, [&] {
        const auto exec = unit_property(unit, "ExecStart");
        const auto at = exec.find("--claim ");
        if (at == std::string::npos) {
            return false;
        }
        token = exec.substr(at + 8, 32);
        return true;
    }));
    ASSERT_EQ(token.size(), 32U);
    const auto token_seen = std::chrono::steady_clock::now();

    // The worker's own UID, but from another unit.
    std::vector<std::string> from_other_unit{"systemd-run", "--quiet", "--wait", "--pipe", "--uid", kWorker, "--"};
    const auto claim = dbus_send_claim(token);
    from_other_unit.insert(from_other_unit.end(), claim.begin(), claim.end());
    const auto foreign_unit = run(from_other_unit);
    EXPECT_NE(foreign_unit.status, 0);
    EXPECT_NE(foreign_unit.err.find("org.metis.NativeRuntime1.Error.AccessDenied: no launch is waiting"),
              std::string::npos)
        << foreign_unit.out << foreign_unit.err;
    EXPECT_EQ(foreign_unit.out.find("bwrap"), std::string::npos);

    // The session's own unit, but another UID (one the bus policy lets
    // through): root moves a shell into the unit's cgroup, which then
    // drops to that user and claims.
    std::string in_unit = join_unit_cgroup(unit) + "exec setpriv --reuid " + std::string(kStranger) + " --regid " +
                          kStranger + " --init-groups";
    for (const auto& arg : claim) {
        in_unit += " '" + arg + "'";
    }
    const auto foreign_uid = run({"sh", "-c", in_unit});
    EXPECT_NE(foreign_uid.status, 0);
    EXPECT_NE(foreign_uid.err.find("org.metis.NativeRuntime1.Error.AccessDenied: no launch is waiting"),
              std::string::npos)
        << foreign_uid.out << foreign_uid.err;
    EXPECT_EQ(foreign_uid.out.find("bwrap"), std::string::npos);

    // Both attempts came while the real launcher still waited, so the token
    // was live (registered, unclaimed) when they were refused.
    EXPECT_LT(std::chrono::steady_clock::now() - token_seen, std::chrono::seconds(kLauncherDelaySec - 2));

    // Neither burned the token: the real launcher claims it and runs.
    const auto outcome = session.wait();
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(outcome.out, "ran-after-the-theft\n");
}

// ------------------------------------------------------ the supervisor

namespace {

constexpr const char* kNotAnExecutable = "/usr/libexec/native-runtime/tests/nr-not-an-executable";

std::string read_text(const std::string& path)
{
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

uid_t owner_of(const std::string& path)
{
    struct stat st {};
    return stat(path.c_str(), &st) == 0 ? st.st_uid : static_cast<uid_t>(-1);
}

// Puts a root-owned file that is not executable over the installed
// supervisor (so the preflight's immutability check still passes), in the
// harness's mount namespace, where systemd starts the session units.
class AnUnstartableSupervisor : public ::testing::Test {
protected:
    void SetUp() override
    {
        std::ofstream stand_in(kNotAnExecutable);
        stand_in << "not an executable\n";
        stand_in.close();
        must({"chmod", "0644", kNotAnExecutable});
    }
    void TearDown() override
    {
        mend();
        std::remove(kNotAnExecutable);
    }

    // The helper runs the preflight canary before a session when this boot
    // has no pass, and again after a session that failed to launch; it
    // would meet the stand-in. A session with the real supervisor passes it.
    void break_after_a_passing_session(const std::string& chat)
    {
        mend();
        const auto before = run(as_user(kWorker, ctl_run("alice", chat + "-before", "shell", {"sh", "-c", "true"})));
        ASSERT_EQ(before.status, 0) << before.err;
        ASSERT_EQ(mount(kNotAnExecutable, kSupervisor, nullptr, MS_BIND, nullptr), 0);
        mounted_ = true;
    }

private:
    void mend()
    {
        if (mounted_) {
            umount2(kSupervisor, MNT_DETACH);
            mounted_ = false;
        }
    }

    bool mounted_ = false;
};

} // namespace

TEST(ARunningSessionsMainProcess, IsTheSupervisorNonDumpableWithoutTheLaunchersLibraries)
{
    const std::string unit = "native-runtime-alice-supervised.service";
    Background session(as_user(kWorker, ctl_run("alice", "supervised", "shell", {"sh", "-c", "sleep 30"})));
    std::string main_pid;
    std::string bwrap_pid;
    ASSERT_TRUE(eventually(
        30,
        [&] {
            main_pid = unit_property(unit, "MainPID");
            if (main_pid.empty() || main_pid == "0") {
                return false;
            }
            std::ifstream(std::filesystem::path("/proc") / main_pid / "task" / main_pid / "children") >> bwrap_pid;
            return !bwrap_pid.empty() && read_text("/proc/" + bwrap_pid + "/comm") == "bwrap\n" &&
                   std::filesystem::read_symlink("/proc/" + main_pid + "/exe") == kSupervisor;
        }))
        << "the unit's main process, bwrap's parent, is " << kSupervisor;

    // /proc/PID/exe names the supervisor from its execve on, while ld.so
    // may still be mapping its libraries (slowest with the sanitizer
    // runtime): the maps are read once libc is among them.
    std::string maps;
    (void)eventually(10, [&] {
        maps = read_text("/proc/" + main_pid + "/maps");
        return contains(maps, "libc.so");
    });
    EXPECT_TRUE(contains(maps, "libc.so")) << "control: its mappings are readable: " << maps;
    std::vector<std::string> absent{"libsystemd", "libsdbus-c++", "libseccomp", "libgcrypt"};
#if !defined(__SANITIZE_ADDRESS__)
    // The sanitizer build's supervisor uses the shared C++ runtime.
    absent.emplace_back("libstdc++");
#endif
    for (const auto& library : absent) {
        EXPECT_FALSE(contains(maps, library)) << library << " is mapped:\n" << maps;
    }
    // Non-dumpable from the moment /proc shows the exec (the binary is
    // execute-only, so the kernel never makes it dumpable): its /proc files
    // belong to root, and the session user cannot read them, though it reads
    // those of its own processes.
    EXPECT_EQ(owner_of("/proc/" + main_pid + "/environ"), 0U);
    EXPECT_NE(run(as_user(kWorker, {"cat", kSupervisor})).status, 0) << "the session user can only execute it";
    EXPECT_NE(run(as_user(kWorker, {"cat", "/proc/" + main_pid + "/environ"})).status, 0);
    EXPECT_EQ(run(as_user(kWorker, {"sh", "-c", "cat /proc/$$/environ >/dev/null"})).status, 0) << "control";

    EXPECT_EQ(run(as_user(kWorker, {kCtl, "stop", "--owner", "alice", "--chat", "supervised"})).status, 0);
    EXPECT_EQ(session.wait().status, 128 + SIGTERM) << "the session ended the way bwrap did";
}

// Several rounds: the launcher's SIGKILL lands at a different moment of
// bwrap's set-up each time, and in one window bwrap left its sandbox process
// blocked and deaf to SIGTERM, holding the unit's stop for 90 s (the
// window itself is shown deterministically by tests/sys/orphan_reaping_test.cpp).
TEST_F(AnUnstartableSupervisor, StopsTheSandboxAndFailsTheSessionWith125AndAJournalRecord)
{
    for (const std::string chat : {"nosuper", "nosuper2", "nosuper3", "nosuper4"}) {
        const std::string unit = "native-runtime-alice-" + chat + ".service";
        break_after_a_passing_session(chat);
        const auto started = std::chrono::steady_clock::now();
        const auto outcome =
            run(as_user(kWorker, ctl_run("alice", chat, "shell", {"sh", "-c", "sleep 20; echo ran-unsupervised"})));
        EXPECT_EQ(outcome.status, 125) << chat << ": " << outcome.err;
        EXPECT_TRUE(contains(outcome.err,
                             "native-runtime-launch: LaunchFailed: cannot start the session's supervisor: "
                             "exec /usr/libexec/native-runtime/native-runtime-supervise: Permission denied"))
            << outcome.err;
        EXPECT_FALSE(contains(outcome.out, "ran-unsupervised"));
        EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(15))
            << chat << ": the sandbox was killed, and nothing of it held the unit's stop";

        std::string records;
        EXPECT_TRUE(eventually(10,
                               [&] {
                                   records = run({"journalctl", "--no-pager", "-o", "cat", "_SYSTEMD_UNIT=" + unit,
                                                  "MESSAGE_ID=b11e73c3c20f49f1a6e8e1087bf52d9b"})
                                                 .out;
                                   return contains(records, "cannot start the session's supervisor");
                               }))
            << chat << ": " << records
            << run({"journalctl", "--no-pager", "-o", "verbose", "-n", "2",
                    "MESSAGE_ID=b11e73c3c20f49f1a6e8e1087bf52d9b"})
                   .out;
    }
}
