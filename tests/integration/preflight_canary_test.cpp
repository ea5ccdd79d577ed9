// SPDX-License-Identifier: Apache-2.0
// The preflight canary goes through the real launch path: a launcher that
// cannot apply Landlock fails it (in `native-runtimectl preflight` and in
// the helper's gate) with a message naming Landlock; and a passed canary is
// kept for the boot, so a cold activation skips it until an input changes;
// a helper started with the application has run its checks before the
// application's first call.

#include "fixture.h"

#include <gtest/gtest.h>

#include <sys/mount.h>
#include <sys/stat.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace nr::itest;

namespace {

constexpr const char* kNoLandlockLauncher = "/usr/libexec/native-runtime/tests/nr-launch-no-landlock";
constexpr const char* kDenyLandlock = "/usr/libexec/native-runtime/tests/nr-deny-landlock";
constexpr const char* kCache = "/var/lib/native-runtime/preflight-canary";
constexpr const char* kConfig = "/etc/native-runtime/config.yaml";

// Stops the helper and waits until it is gone, so the next call activates
// a fresh instance (which sees the mount namespace and config of now).
void stop_helper_and_wait()
{
    run({"systemctl", "stop", "native-runtimed.service"});
    EXPECT_TRUE(eventually(10, [] {
        return run({"systemctl", "is-active", "native-runtimed.service"}).out.find("inactive") == 0 ||
               run({"systemctl", "is-active", "native-runtimed.service"}).out.find("failed") == 0;
    }));
}

struct CacheFile {
    bool exists = false;
    ino_t inode = 0;
    std::string text;
};

CacheFile cache_file()
{
    CacheFile out;
    struct stat st {};
    if (::stat(kCache, &st) == 0) {
        out.exists = true;
        out.inode = st.st_ino;
        out.text = read_file(kCache);
    }
    return out;
}

// The helper's journal records of its canary, e.g. "started", "cached".
int canary_records(const std::string& what)
{
    const auto out =
        run({"journalctl", "--no-pager", "-q", "-o", "cat", "NATIVE_RUNTIME_PREFLIGHT_CANARY=" + what}).out;
    int lines = 0;
    for (const char c : out) {
        lines += c == '\n' ? 1 : 0;
    }
    return lines;
}

// Puts a launcher that runs the real one under a seccomp filter denying
// landlock_* (ENOSYS, as a kernel without Landlock answers) over the
// installed path, in the harness's mount namespace only; removed at the end.
class ALauncherWithoutLandlock : public ::testing::Test {
protected:
    void SetUp() override
    {
        stop_helper_and_wait();
        ASSERT_EQ(run({"install", "-m", "0755", kLauncher, kRealLauncherCopy}).status, 0);
        {
            std::ofstream wrapper(kNoLandlockLauncher);
            wrapper << "#!/bin/sh\nexec " << kDenyLandlock << " " << kRealLauncherCopy << " \"$@\"\n";
        }
        ASSERT_EQ(run({"chmod", "0755", kNoLandlockLauncher}).status, 0);
        ASSERT_EQ(mount(kNoLandlockLauncher, kLauncher, nullptr, MS_BIND, nullptr), 0);
        mounted_ = true;
    }
    void TearDown() override
    {
        if (mounted_) {
            umount2(kLauncher, MNT_DETACH);
        }
        std::remove(kNoLandlockLauncher);
        std::remove(kRealLauncherCopy);
        stop_helper_and_wait();
    }

private:
    bool mounted_ = false;
};

} // namespace

TEST_F(ALauncherWithoutLandlock, FailsPreflightAndTheHelpersGateNamingLandlock)
{
    const auto preflight = run({kCtl, "preflight"});
    EXPECT_EQ(preflight.status, 1) << preflight.out;
    // The kernel has Landlock: only the canary, which runs the launcher
    // as sessions do, can notice that this launcher cannot apply it.
    EXPECT_NE(preflight.out.find("PASS landlock: Landlock ABI"), std::string::npos) << preflight.out;
    EXPECT_NE(preflight.out.find("FAIL canary-session: canary ended with result exit-code, status 125: "
                                 "native-runtime-launch: LaunchFailed: Landlock is not available (Function not "
                                 "implemented); ABI 6 is required"),
              std::string::npos)
        << preflight.out;
    EXPECT_NE(preflight.out.find("hint: the launcher could not apply Landlock: it needs ABI 6"), std::string::npos)
        << preflight.out;
    EXPECT_FALSE(cache_file().exists) << "a failed canary leaves no pass behind";

    const auto refused = run(as_user(kWorker, ctl_run("grace", "nolandlock", "shell", {"sh", "-c", "echo ran"})));
    EXPECT_EQ(refused.status, 65) << refused.out << refused.err
                                  << run({"journalctl", "--no-pager", "-o", "short-monotonic", "-n", "40", "-u",
                                          "native-runtimed", "-u", "native-runtime-preflight.service"})
                                         .out;
    EXPECT_NE(refused.err.find("org.metis.NativeRuntime1.Error.PreflightFailed: canary-session:"), std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find("Landlock is not available"), std::string::npos) << refused.err;
    EXPECT_EQ(refused.out, "");
}

TEST(TheRealLauncher, PassesTheCanaryAsPositiveControl)
{
    stop_helper_and_wait();
    const auto preflight = run({kCtl, "preflight"});
    EXPECT_NE(preflight.out.find("PASS canary-session: a session unit ran the launcher, which applied Landlock"),
              std::string::npos)
        << preflight.out;
    EXPECT_NE(cache_file().text.find("boot_id="), std::string::npos) << "preflight's fresh pass is kept";
    const auto ran = run(as_user(kWorker, ctl_run("grace", "landlock", "shell", {"sh", "-c", "echo ran"})));
    EXPECT_EQ(ran.status, 0) << ran.err;
    EXPECT_EQ(ran.out, "ran\n");
}

TEST(APassedCanary, IsKeptForTheBootAndRunAgainWhenTheConfigChanges)
{
    const auto saved_config = read_file(kConfig);
    stop_helper_and_wait();
    std::remove(kCache);

    // Cold, nothing kept: the canary runs before the session and is kept.
    const auto started_before = canary_records("started");
    const auto first = run(as_user(kWorker, ctl_run("heidi", "cold1", "shell", {"sh", "-c", "echo one"})));
    EXPECT_EQ(first.status, 0) << first.err;
    EXPECT_EQ(first.out, "one\n");
    const auto kept = cache_file();
    ASSERT_TRUE(kept.exists);
    EXPECT_NE(kept.text.find("boot_id=" + read_file("/proc/sys/kernel/random/boot_id")), std::string::npos)
        << kept.text;
    EXPECT_TRUE(eventually(5, [&] { return canary_records("started") > started_before; }));

    // Cold again (a new helper instance), same inputs: no canary.
    stop_helper_and_wait();
    const auto started_after_first = canary_records("started");
    const auto cached_before = canary_records("cached");
    const auto second = run(as_user(kWorker, ctl_run("heidi", "cold2", "shell", {"sh", "-c", "echo two"})));
    EXPECT_EQ(second.status, 0) << second.err;
    EXPECT_EQ(second.out, "two\n");
    EXPECT_EQ(cache_file().inode, kept.inode) << "the pass was not written again";
    EXPECT_TRUE(eventually(5, [&] { return canary_records("cached") > cached_before; }));
    EXPECT_EQ(canary_records("started"), started_after_first);

    // A changed configuration is a new input: the canary runs again.
    std::ofstream(kConfig, std::ios::app) << "# a comment changes the digest\n";
    stop_helper_and_wait();
    const auto third = run(as_user(kWorker, ctl_run("heidi", "cold3", "shell", {"sh", "-c", "echo three"})));
    EXPECT_EQ(third.status, 0) << third.err;
    EXPECT_EQ(third.out, "three\n");
    const auto rerun = cache_file();
    EXPECT_TRUE(rerun.exists);
    EXPECT_NE(rerun.inode, kept.inode) << "the canary ran again and its pass replaced the old one";
    EXPECT_NE(rerun.text, kept.text);
    EXPECT_TRUE(eventually(5, [&] { return canary_records("started") > started_after_first; }));

    std::ofstream(kConfig, std::ios::trunc) << saved_config;
    stop_helper_and_wait();
}

namespace {

// An application unit that runs until stopped, with or without the late
// drop-in (which wants the helper).
class AnApplicationUnit : public ::testing::Test {
protected:
    const std::string unit = "nr-starts-helper-app.service";
    const std::string file = "/etc/systemd/system/" + unit;

    void SetUp() override
    {
        write_file(file, "[Unit]\nDescription=native-runtime test app\n[Service]\nExecStart=/bin/sleep 600\n");
        ASSERT_EQ(run({"systemctl", "daemon-reload"}).status, 0);
    }
    void TearDown() override
    {
        run({"systemctl", "stop", unit});
        run({kCtl, "uninstall-dropins", "--unit", unit});
        std::remove(file.c_str());
        run({"systemctl", "daemon-reload"});
    }
    // The app's start as at boot: no call to the helper is made.
    void start_the_application_alone()
    {
        stop_helper_and_wait();
        std::remove(kCache);
        ASSERT_EQ(run({"systemctl", "start", unit}).status, 0);
    }
};

} // namespace

TEST_F(AnApplicationUnit, WithoutTheLateDropinLeavesTheHelperToActivation)
{
    start_the_application_alone();
    std::this_thread::sleep_for(std::chrono::seconds(2));
    EXPECT_EQ(unit_property("native-runtimed.service", "ActiveState"), "inactive");
    EXPECT_FALSE(cache_file().exists);
}

TEST_F(AnApplicationUnit, WithTheLateDropinStartsTheHelperWhichPassesItsChecksBeforeTheFirstCall)
{
    const auto install = run({kCtl, "install-dropins", "--unit", unit});
    ASSERT_EQ(install.status, 0) << install.out << install.err;
    EXPECT_NE(unit_property(unit, "Wants").find("native-runtimed.service"), std::string::npos);
    EXPECT_NE(unit_property(unit, "After").find("native-runtimed.service"), std::string::npos);
    const auto started_before = canary_records("started");

    start_the_application_alone();
    EXPECT_EQ(unit_property("native-runtimed.service", "ActiveState"), "active")
        << "ordered after the helper, the application starts once the helper has its bus name";
    EXPECT_TRUE(eventually(60, [] { return cache_file().text.find("boot_id=") != std::string::npos; }))
        << "no canary passed before any call: "
        << run({"journalctl", "--no-pager", "-q", "-n", "30", "-u", "native-runtimed.service"}).out;
    EXPECT_EQ(canary_records("started"), started_before + 1);

    const auto ran = run(as_user(kWorker, ctl_run("heidi", "afterboot", "shell", {"sh", "-c", "echo ran"})));
    EXPECT_EQ(ran.status, 0) << ran.err;
    EXPECT_EQ(ran.out, "ran\n");
    EXPECT_EQ(canary_records("started"), started_before + 1) << "the first session waited for no canary of its own";
}

// A helper that exits while the canary it ran at start is still waiting
// for its spec leaves that canary running; on systemd < 257 its launcher
// then waits for a Claim that only the next helper could answer, while
// that helper waited for the canary's name. The next helper stops it.
TEST(ACanaryLeftRunningByAHelperThatExited, IsStoppedByTheNextHelperWhoseFirstSessionRuns)
{
    const std::string canary = "native-runtime-preflight.service";
    // The helper runs its canary as soon as it has its bus name, so when it
    // is stopped the canary may not have started yet, or may have passed
    // already: a few tries, each from a fresh helper with no pass on record,
    // to stop one while its canary waits.
    std::string first;
    std::string state;
    for (int attempt = 0; attempt < 5; ++attempt) {
        stop_helper_and_wait();
        std::remove(kCache);
        ASSERT_EQ(run({"busctl", "--system", "get-property", "org.metis.NativeRuntime1", "/org/metis/NativeRuntime1",
                       "org.metis.NativeRuntime1.Manager", "Version"})
                      .status,
                  0);
        first = unit_property("native-runtimed.service", "MainPID");
        ASSERT_EQ(::kill(static_cast<pid_t>(std::stol(first)), SIGSTOP), 0);
        state = unit_property(canary, "ActiveState");
        if (state == "active" || state == "activating") {
            break;
        }
        ASSERT_EQ(::kill(static_cast<pid_t>(std::stol(first)), SIGCONT), 0);
    }
    const auto pid = static_cast<pid_t>(std::stol(first));
    EXPECT_TRUE(state == "active" || state == "activating")
        << "control: the first helper's canary is still running, it is " << state;
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    ASSERT_TRUE(eventually(10, [&] { return unit_property("native-runtimed.service", "MainPID") != first; }));

    const auto ran = run(as_user(kWorker, ctl_run("heidi", "leftover", "shell", {"sh", "-c", "echo ran"})));
    EXPECT_EQ(ran.status, 0) << ran.err;
    EXPECT_EQ(ran.out, "ran\n");
    EXPECT_TRUE(cache_file().exists) << "the next helper's own canary passed";
}
