// SPDX-License-Identifier: Apache-2.0
#include "core/ops/preflight.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <sys/stat.h>

using namespace nr::core;
using ::testing::HasSubstr;

namespace {

PathFacts dir(const std::string& path, uid_t uid, gid_t gid, mode_t mode)
{
    return {path, true, uid, gid, static_cast<mode_t>(S_IFDIR | mode)};
}

PathFacts file(const std::string& path, uid_t uid, gid_t gid, mode_t mode)
{
    return {path, true, uid, gid, static_cast<mode_t>(S_IFREG | mode)};
}

const Principal kWorker{"worker", 1000, {1000, 500}};

std::vector<PathFacts> launcher_chain(const PathFacts& launcher)
{
    return {launcher, dir("/usr/libexec/native-runtime", 0, 0, 0755), dir("/usr/libexec", 0, 0, 0755),
            dir("/usr", 0, 0, 0755), dir("/", 0, 0, 0755)};
}

} // namespace

TEST(UserNamespaces, PassWhenAnUnprivilegedUnshareWorks)
{
    EXPECT_TRUE(judge_userns({"15000", std::nullopt, std::nullopt, false, 0}).passed);
}

TEST(UserNamespaces, FailWithTheSysctlToFixWhenDisabled)
{
    const auto r = judge_userns({"0", std::nullopt, std::nullopt, false, ENOSPC});
    EXPECT_FALSE(r.passed);
    EXPECT_NE(r.hint.find("user.max_user_namespaces"), std::string::npos) << r.hint;
    const auto debian = judge_userns({"15000", "0\n", std::nullopt, false, EPERM});
    EXPECT_NE(debian.hint.find("kernel.unprivileged_userns_clone=1"), std::string::npos) << debian.hint;
}

TEST(UbuntusAppArmorRestriction, IsRecognisedAndNamesTheBwrapProfile)
{
    const auto denied = judge_userns({"15000", std::nullopt, "1", false, EACCES});
    EXPECT_FALSE(denied.passed);
    EXPECT_NE(denied.detail.find("apparmor_restrict_unprivileged_userns=1"), std::string::npos) << denied.detail;
    EXPECT_NE(denied.hint.find("bwrap-userns-restrict"), std::string::npos) << denied.hint;
    const auto no_profile = judge_userns({"15000", std::nullopt, "1", false, 0});
    EXPECT_FALSE(no_profile.passed) << "a capability-less namespace is not enough for bwrap";
    EXPECT_TRUE(judge_userns({"15000", std::nullopt, "1", true, 0}).passed);
}

TEST(Bwrap, NeedsEveryOptionTheSandboxUses)
{
    const std::string help = "    --unshare-all   Unshare every namespace\n    --proc DEST   Mount procfs\n";
    EXPECT_TRUE(judge_bwrap("/usr/bin/bwrap", true, "0.8.0", help, {"--proc", "--unshare-all"}).passed);
    const auto old = judge_bwrap("/usr/bin/bwrap", true, "0.4.0", help, {"--proc", "--disable-userns"});
    EXPECT_FALSE(old.passed);
    EXPECT_NE(old.detail.find("--disable-userns"), std::string::npos);
    EXPECT_FALSE(judge_bwrap("/usr/bin/bwrap", true, "x", "--procfoo\n", {"--proc"}).passed) << "whole words only";
    EXPECT_TRUE(judge_bwrap("/usr/bin/bwrap", true, "x", "  --dev-bind SRC DEST\n  --dev DEST\n", {"--dev"}).passed)
        << "a longer option listed first does not hide the shorter one";
    EXPECT_FALSE(judge_bwrap("/usr/bin/bwrap", false, "", help, {}).passed);
}

TEST(ABwrapWhoseHelpDoesNotRun, FailsAndSaysSo)
{
    const auto broken = judge_bwrap("/usr/bin/bwrap", true, std::nullopt, std::nullopt, {"--proc"});
    EXPECT_FALSE(broken.passed);
    EXPECT_NE(broken.detail.find("does not run"), std::string::npos) << broken.detail;
    const auto unversioned = judge_bwrap("/usr/bin/bwrap", true, std::nullopt, "  --proc DEST\n", {"--proc"});
    EXPECT_TRUE(unversioned.passed) << "the version only names bwrap in the result";
    EXPECT_NE(unversioned.detail.find("version unknown"), std::string::npos) << unversioned.detail;
}

TEST(BwrapOptionsUsed, AreTakenFromThePlannedArgvBeforeTheAgent)
{
    const auto used = bwrap_options_used({"/usr/bin/bwrap", "--ro-bind", "/usr", "/usr", "--proc", "/proc", "--",
                                          "/usr/bin/agent", "--not-a-bwrap-option"});
    EXPECT_EQ(used, (std::vector<std::string>{"--args", "--proc", "--ro-bind", "--seccomp"}));
}

TEST(ProtectedHardlinks, MustBeOneAndSaySoWhenUnreadable)
{
    EXPECT_TRUE(judge_protected_hardlinks("1\n").passed);
    EXPECT_FALSE(judge_protected_hardlinks("0\n").passed);
    const auto unreadable = judge_protected_hardlinks(std::nullopt);
    EXPECT_FALSE(unreadable.passed);
    EXPECT_NE(unreadable.detail.find("could not be read"), std::string::npos);
}

TEST(SystemdVersion, MustHaveProtectProc)
{
    EXPECT_TRUE(judge_systemd_version("252.22-1~deb12u1").passed);
    EXPECT_TRUE(judge_systemd_version("247").passed);
    EXPECT_FALSE(judge_systemd_version("246.1").passed);
    EXPECT_FALSE(judge_systemd_version("").passed);
}

TEST(SystemdVersion, SaysHowLaunchersGetTheirSpecOnIt)
{
    EXPECT_NE(judge_systemd_version("252.22-1~deb12u1").detail.find("Launcher.Claim"), std::string::npos);
    EXPECT_NE(judge_systemd_version("257.9-1~deb13u1").detail.find("nr-helper-channel"), std::string::npos);
}

TEST(TheCanary, PassesOnlyWhenBwrapRanTheCommand)
{
    EXPECT_TRUE(judge_canary({true, "", "success", 0, ""}).passed);
    const auto procsubset = judge_canary({true, "", "exit-code", 1, "bwrap: Can't read /proc/sys/kernel/overflowuid"});
    EXPECT_FALSE(procsubset.passed);
    EXPECT_NE(procsubset.hint.find("ProcSubset"), std::string::npos);
    EXPECT_FALSE(judge_canary({false, "Unknown assignment", "", -1, ""}).passed);
}

TEST(WritableBy, FollowsOwnerGroupAndOtherBits)
{
    EXPECT_TRUE(writable_by(file("/x", 1000, 0, 0444), kWorker)) << "the owner can chmod";
    EXPECT_TRUE(writable_by(file("/x", 0, 500, 0775), kWorker));
    EXPECT_FALSE(writable_by(file("/x", 0, 501, 0775), kWorker));
    EXPECT_TRUE(writable_by(file("/x", 0, 0, 0757), kWorker));
    EXPECT_FALSE(writable_by(file("/x", 0, 0, 0755), kWorker));
}

TEST(ImmutableCode, PassesForRootOwnedReadOnlyTrees)
{
    EXPECT_TRUE(judge_immutable({launcher_chain(file("/usr/libexec/native-runtime/l", 0, 0, 0755))}, {kWorker}).passed);
}

TEST(ImmutableCode, FailsNamingAPathTheWorkerCanWrite)
{
    const auto r = judge_immutable({launcher_chain(file("/usr/libexec/native-runtime/l", 0, 500, 0775))}, {kWorker});
    EXPECT_FALSE(r.passed);
    EXPECT_NE(r.detail.find("/usr/libexec/native-runtime/l is writable by worker (mode 0775)"), std::string::npos)
        << r.detail;
}

TEST(ImmutableCode, FailsForAWritableAncestorButNotAStickyOne)
{
    auto chain = launcher_chain(file("/usr/libexec/native-runtime/l", 0, 0, 0755));
    chain[2] = dir("/usr/libexec", 0, 0, 0777);
    const auto r = judge_immutable({chain}, {kWorker});
    EXPECT_FALSE(r.passed);
    EXPECT_NE(r.detail.find("ancestor of /usr/libexec/native-runtime/l"), std::string::npos) << r.detail;
    chain[2] = dir("/usr/libexec", 0, 0, 01777);
    EXPECT_TRUE(judge_immutable({chain}, {kWorker}).passed);
}

TEST(ImmutableCode, FailsForAForeignOwnedPath)
{
    EXPECT_FALSE(judge_immutable({{file("/opt/agent", 1000, 0, 0755)}}, {kWorker}).passed);
    EXPECT_FALSE(judge_immutable({{file("/opt/agent", 1001, 0, 0755)}}, {kWorker}).passed) << "not root";
}

TEST(AMissingGrant, CountsOnlyThroughWhetherItCouldBeCreated)
{
    EXPECT_TRUE(
        judge_immutable({{PathFacts{"/opt/agent", false, 0, 0, 0}, dir("/opt", 0, 0, 0755), dir("/", 0, 0, 0755)}},
                        {kWorker})
            .passed);
    const auto creatable = judge_immutable(
        {{PathFacts{"/opt/agent", false, 0, 0, 0}, dir("/opt", 0, 500, 0775), dir("/", 0, 0, 0755)}}, {kWorker});
    EXPECT_FALSE(creatable.passed);
    EXPECT_NE(creatable.detail.find("/opt (ancestor of /opt/agent)"), std::string::npos) << creatable.detail;
}

TEST(TheSnapshotDir, MustBe2770WithTheGroup)
{
    EXPECT_TRUE(judge_snapshot_dir("", {}, std::nullopt, "g").passed) << "not configured";
    EXPECT_TRUE(judge_snapshot_dir("/s", dir("/s", 0, 500, 02770), 500, "g").passed);
    const auto mode = judge_snapshot_dir("/s", dir("/s", 0, 500, 0770), 500, "g");
    EXPECT_FALSE(mode.passed);
    EXPECT_NE(mode.detail.find("0770"), std::string::npos) << mode.detail;
    EXPECT_FALSE(judge_snapshot_dir("/s", dir("/s", 0, 501, 02770), 500, "g").passed);
    EXPECT_FALSE(judge_snapshot_dir("/s", PathFacts{"/s", false, 0, 0, 0}, 500, "g").passed);
    EXPECT_FALSE(judge_snapshot_dir("/s", dir("/s", 0, 500, 02770), std::nullopt, "g").passed);
}

TEST(ASnapshotDirOwnedByAnotherUser, FailsBecauseTheHelperCannotWriteIt)
{
    const auto result = judge_snapshot_dir("/s", dir("/s", 1000, 500, 02770), 500, "g");
    EXPECT_FALSE(result.passed);
    EXPECT_NE(result.detail.find("not root"), std::string::npos) << result.detail;
    EXPECT_NE(result.hint.find("chown root /s"), std::string::npos) << result.hint;
}

TEST(AMissingSnapshotDir, NamesTheProvisioningCommand)
{
    const auto missing = judge_snapshot_dir("/s", PathFacts{"/s", false, 0, 0, 0}, 500, "g");
    EXPECT_EQ(missing.hint, "native-runtimectl provision-snapshot-dir --group g /s");
}

TEST(FirstFailure, IsTheFirstCheckThatFailed)
{
    const std::vector<CheckResult> results{{"a", true, "", ""}, {"b", false, "", ""}, {"c", false, "", ""}};
    EXPECT_EQ(first_failure(results)->name, "b");
    EXPECT_FALSE(first_failure({{"a", true, "", ""}}).has_value());
}

TEST(TheDropinCheck, FailsNamingTheUnitsWhoseDropinIsNotInEffect)
{
    EXPECT_TRUE(judge_dropins({"app.service"}, {}, {}).passed);
    EXPECT_FALSE(judge_dropins({"app.service"}, {}, {}).warning);
    const auto failed = judge_dropins({"app.service"}, {"app.service: ProcSubset is pid"}, {"app.service"});
    EXPECT_FALSE(failed.passed) << "a setting not in effect fails, whatever else";
    EXPECT_NE(failed.detail.find("app.service: ProcSubset is pid"), std::string::npos);
    EXPECT_FALSE(judge_dropins({}, {}, {}).passed) << "no units configured";
}

TEST(TheDropinCheck, WarnsAboutUnitsThatDoNotStartTheHelper)
{
    const auto outcome = judge_dropins({"app.service", "worker.service"}, {}, {"worker.service"});
    EXPECT_TRUE(outcome.passed) << "the sessions' isolation does not depend on it";
    EXPECT_TRUE(outcome.warning);
    EXPECT_NE(outcome.detail.find("but worker.service neither wants nor starts after native-runtimed.service"),
              std::string::npos)
        << outcome.detail;
    EXPECT_NE(outcome.hint.find("native-runtimectl install-dropins rewrites it"), std::string::npos) << outcome.hint;
}

TEST(TheHelperDropinCheck, PassesWithoutProblemsAndFailsNamingThem)
{
    EXPECT_TRUE(judge_helper_dropin({}).passed);
    const auto failed = judge_helper_dropin({"native-runtimed.service: ReadWritePaths is (empty)"});
    EXPECT_FALSE(failed.passed);
    EXPECT_EQ(failed.name, "helper-dropin");
    EXPECT_NE(failed.detail.find("ReadWritePaths"), std::string::npos);
    EXPECT_NE(failed.hint.find("install-dropins"), std::string::npos);
}

TEST(TheCanary, NamesLandlockWhenTheLauncherCouldNotApplyIt)
{
    const auto outcome = judge_canary(
        {true, "", "exit-code", 125,
         "native-runtime-launch: LaunchFailed: Landlock is not available (Function not implemented); ABI 6 is "
         "required to keep sessions away from the host's abstract unix sockets\n"});
    EXPECT_FALSE(outcome.passed);
    EXPECT_NE(outcome.detail.find("status 125: native-runtime-launch: LaunchFailed: Landlock is not available"),
              std::string::npos)
        << outcome.detail;
    EXPECT_NE(outcome.hint.find("Landlock: it needs ABI 6"), std::string::npos) << outcome.hint;
}

TEST(TheLandlockCheck, NamesTheAbiFoundAndTheAbiRequired)
{
    EXPECT_TRUE(judge_landlock(6, 0).passed);
    EXPECT_TRUE(judge_landlock(7, 0).passed);
    const auto old = judge_landlock(5, 0);
    EXPECT_FALSE(old.passed);
    EXPECT_EQ(old.name, "landlock");
    EXPECT_NE(old.detail.find("Landlock ABI 5 found; the launcher needs ABI 6"), std::string::npos) << old.detail;
    EXPECT_NE(old.hint.find("6.12"), std::string::npos);
    const auto absent = judge_landlock(-1, EOPNOTSUPP);
    EXPECT_FALSE(absent.passed);
    EXPECT_NE(absent.detail.find("Landlock is not available (Operation not supported)"), std::string::npos)
        << absent.detail;
}

namespace {

CanaryInputs inputs()
{
    CanaryInputs in;
    in.boot_id = "3f0c";
    in.kernel = "6.18.0 #1 SMP";
    in.systemd_version = "252.22";
    in.config_digest = "ab12";
    in.binaries = {{"/usr/libexec/native-runtime/native-runtime-launch", "dev=1 ino=2"},
                   {"/usr/bin/bwrap", "dev=1 ino=3"}};
    in.sysctls = {{"/proc/sys/user/max_user_namespaces", "15000"}};
    return in;
}

} // namespace

TEST(TheCanaryCacheRecord, IsTheSameForTheSameInputs)
{
    EXPECT_EQ(canary_cache_record(inputs()), canary_cache_record(inputs()));
    EXPECT_NE(canary_cache_record(inputs()).find("boot_id=3f0c\n"), std::string::npos);
}

TEST(TheCanaryCacheRecord, ChangesWithEveryInput)
{
    const auto base = canary_cache_record(inputs());
    std::vector<CanaryInputs> changed(7, inputs());
    changed[0].boot_id = "another boot";
    changed[1].kernel = "6.19.0 #1 SMP";
    changed[2].systemd_version = "257";
    changed[3].config_digest = "cd34";
    changed[4].binaries[0].second = "dev=1 ino=9";
    changed[5].binaries.pop_back();
    changed[6].sysctls[0].second = "0";
    for (std::size_t i = 0; i < changed.size(); ++i) {
        EXPECT_NE(canary_cache_record(changed[i]), base) << "input " << i;
    }
}

TEST(TheCanaryCacheRecord, CannotBeForgedThroughANewlineInAValue)
{
    auto forged = inputs();
    forged.kernel = "6.18.0\nsystemd=252.22";
    const auto record = canary_cache_record(forged);
    EXPECT_NE(record.find("kernel=6.18.0\\nsystemd=252.22\n"), std::string::npos) << record;
}

TEST(APreflightResult, IsPrintedAsPassFailOrWarn)
{
    EXPECT_EQ(verdict_word({kCheckBwrap, true, "ok", ""}), "PASS");
    EXPECT_EQ(verdict_word({kCheckBwrap, false, "missing", "install it"}), "FAIL");
    EXPECT_EQ(verdict_word({kCheckProviderKey, true, "a key in a session", "use the gateway", true}), "WARN");
}

TEST(AWarning, IsNoFailure)
{
    const std::vector<CheckResult> results{{kCheckBwrap, true, "ok", ""},
                                           {kCheckProviderKey, true, "a key in a session", "use the gateway", true}};
    EXPECT_FALSE(first_failure(results).has_value());
}

TEST(CgroupsV2Only, PassWithTheControllersSessionLimitsNeed)
{
    const auto v2 = judge_cgroups({"cgroup2fs", "cpuset cpu io memory hugetlb pids rdma misc"});
    EXPECT_TRUE(v2.passed);
    EXPECT_FALSE(v2.warning);
    EXPECT_EQ(v2.name, "cgroups");
}

TEST(CgroupsV2Only, FailNamingEachMissingController)
{
    const auto r = judge_cgroups({"cgroup2fs", "cpuset io hugetlb"});
    EXPECT_FALSE(r.passed);
    EXPECT_THAT(r.detail, HasSubstr("memory pids cpu"));
    EXPECT_FALSE(judge_cgroups({"cgroup2fs", "cpuset memory_x pids cpu"}).passed) << "whole names only";
}

TEST(CgroupV1Controllers, AreAWarningThatPasses)
{
    const auto hybrid = judge_cgroups({"tmpfs", ""});
    EXPECT_TRUE(hybrid.passed);
    EXPECT_TRUE(hybrid.warning);
    EXPECT_THAT(hybrid.hint, HasSubstr("cgroups are v2 only"));
}

TEST(AnUnreadableCgroupHierarchy, Fails)
{
    EXPECT_FALSE(judge_cgroups({"", ""}).passed);
    EXPECT_FALSE(judge_cgroups({"file system type 61267", ""}).passed);
}
