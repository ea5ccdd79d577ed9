// SPDX-License-Identifier: Apache-2.0
#include "core/launch/launch_spec.h"

#include "core/plan/seccomp_rules.h"

#include "core/base/error.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <functional>
#include <string>
#include <vector>

using namespace nr::core;
using ::testing::HasSubstr;

namespace {

// Every field set, the way plan_session and the helper fill them.
LaunchSpec full_spec()
{
    LaunchSpec spec;
    spec.bwrap_argv = {"/usr/bin/bwrap", "--unshare-pid", "--proc", "/proc", "--", "/usr/bin/claude", "-p"};
    spec.environment = {"PATH=/usr/bin:/bin", "HOME=/home/agent", "ANTHROPIC_API_KEY=sk-secret=with=equals", "EMPTY="};
    spec.seccomp = seccomp_policy_for(AdapterProfile{});
    spec.seccomp.denied.push_back({"ioctl", EPERM, ArgumentMatch{1, kLow32Bits, 0x5412}});
    spec.seccomp.kill_foreign_abis = true;
    spec.dirs.base = "/var/lib/nr";
    spec.dirs.relative = {"native-runtime/alice/home", "native-runtime/alice/chats/c-1/workspace"};
    spec.admission.queue_dir = "native-runtime/admission/claude";
    spec.checked_dirs = {{"/srv/work/alice", 64769, 1234567}, {"/var/lib/nr/sessions/alice", 1, 2}};
    spec.gateway_port = 8080;
    spec.protected_paths = {"/var/lib/nr/native-runtime/alice/home",
                            {{".claude/settings.json", false}, {".claude/hooks", true}}};
    return spec;
}

void expect_same_spec(const LaunchSpec& a, const LaunchSpec& b)
{
    EXPECT_EQ(a.bwrap_argv, b.bwrap_argv);
    EXPECT_EQ(a.environment, b.environment);
    EXPECT_EQ(a.seccomp.denied, b.seccomp.denied);
    EXPECT_EQ(a.seccomp.kill_foreign_abis, b.seccomp.kill_foreign_abis);
    EXPECT_EQ(a.dirs.base, b.dirs.base);
    EXPECT_EQ(a.dirs.relative, b.dirs.relative);
    EXPECT_EQ(a.admission.queue_dir, b.admission.queue_dir);
    EXPECT_EQ(a.checked_dirs, b.checked_dirs);
    EXPECT_EQ(a.gateway_port, b.gateway_port);
    EXPECT_EQ(a.protected_paths, b.protected_paths);
}

// The wire form of full_spec() with one change applied.
LaunchSpecWire wire_with(const std::function<void(LaunchSpecWire&)>& change)
{
    auto wire = encode_launch_spec(full_spec());
    change(wire);
    return wire;
}

} // namespace

TEST(ALaunchSpec, SurvivesEncodingAndDecodingUnchanged)
{
    const auto spec = full_spec();
    expect_same_spec(decode_launch_spec(encode_launch_spec(spec)), spec);
}

TEST(ADecodedLaunchSpec, EncodesBackToTheSameWire)
{
    const auto wire = encode_launch_spec(full_spec());
    EXPECT_EQ(encode_launch_spec(decode_launch_spec(wire)), wire);
}

TEST(ALaunchSpecWithoutHostAuthOrDirectories, SurvivesTheRoundTrip)
{
    auto spec = full_spec();
    spec.admission.queue_dir.clear();
    spec.dirs.relative.clear();
    spec.checked_dirs.clear();
    spec.protected_paths = {};
    spec.environment.clear();
    spec.seccomp.kill_foreign_abis = false;
    expect_same_spec(decode_launch_spec(encode_launch_spec(spec)), spec);
}

TEST(AnUnconditionalSyscallRule, TravelsWithNoCondition)
{
    LaunchSpec spec = full_spec();
    spec.seccomp.denied = {{"listen", EPERM, std::nullopt}};
    const auto wire = encode_launch_spec(spec);
    ASSERT_EQ(wire.denied_syscalls.size(), 1U);
    EXPECT_EQ(wire.denied_syscalls[0].name, "listen");
    EXPECT_EQ(wire.denied_syscalls[0].errno_value, EPERM);
    EXPECT_TRUE(wire.denied_syscalls[0].conditions.empty());
}

TEST(AConditionalSyscallRule, TravelsWithItsOneCondition)
{
    LaunchSpec spec = full_spec();
    spec.seccomp.denied = {{"ioctl", EPERM, ArgumentMatch{1, kLow32Bits, 0x5412}}};
    const auto wire = encode_launch_spec(spec);
    ASSERT_EQ(wire.denied_syscalls.size(), 1U);
    ASSERT_EQ(wire.denied_syscalls[0].conditions.size(), 1U);
    EXPECT_EQ(wire.denied_syscalls[0].conditions[0], (ArgumentMatch{1, kLow32Bits, 0x5412}));
}

TEST(ALaunchSpecWire, NamesEachClaimArgument)
{
    const auto spec = full_spec();
    const auto wire = encode_launch_spec(spec);
    EXPECT_EQ(wire.bwrap_argv, spec.bwrap_argv);
    EXPECT_EQ(wire.environment, spec.environment);
    EXPECT_EQ(wire.kill_foreign_abis, spec.seccomp.kill_foreign_abis);
    EXPECT_EQ(wire.dirs_base, spec.dirs.base);
    EXPECT_EQ(wire.private_dirs, spec.dirs.relative);
    EXPECT_EQ(wire.admission_queue, spec.admission.queue_dir);
    EXPECT_EQ(wire.checked_dirs, spec.checked_dirs);
    EXPECT_EQ(wire.gateway_port, spec.gateway_port);
    EXPECT_EQ(wire.protected_base, spec.protected_paths.base);
    EXPECT_EQ(wire.protected_paths, spec.protected_paths.paths);
}

TEST(ALaunchSpecWithoutAGateway, TravelsWithPortZero)
{
    auto spec = full_spec();
    spec.gateway_port = 0;
    const auto wire = encode_launch_spec(spec);
    EXPECT_EQ(wire.gateway_port, 0U);
    EXPECT_EQ(decode_launch_spec(wire).gateway_port, 0U);
}

// ------------------------------------------------------------- rejections

TEST(ALaunchSpecWithNoBwrapArgv, IsRefused)
{
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, decode_launch_spec(wire_with([](auto& w) { w.bwrap_argv.clear(); })));
    EXPECT_THAT(e->what(), HasSubstr("bwrap_argv"));
}

TEST(ALaunchSpecWhoseBwrapIsARelativePath, IsRefused)
{
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed,
                      decode_launch_spec(wire_with([](auto& w) { w.bwrap_argv.front() = "bwrap"; })));
    EXPECT_THAT(e->what(), HasSubstr("bwrap_argv[0]"));
}

TEST(ALaunchSpecWhoseBwrapPathIsNotCanonical, IsRefused)
{
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed,
                      decode_launch_spec(wire_with([](auto& w) { w.bwrap_argv.front() = "/usr/bin/../bin/bwrap"; })));
}

TEST(ALaunchSpecWithANulInAnArgument, IsRefused)
{
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed,
                      decode_launch_spec(wire_with([](auto& w) { w.bwrap_argv.push_back(std::string("a\0b", 3)); })));
    EXPECT_THAT(e->what(), HasSubstr("NUL"));
}

TEST(ALaunchSpecWithAnEnvironmentEntryWithoutAnEqualsSign, IsRefused)
{
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed,
                      decode_launch_spec(wire_with([](auto& w) { w.environment.push_back("JUSTANAME"); })));
    EXPECT_THAT(e->what(), HasSubstr("environment"));
}

TEST(ALaunchSpecWithAnEnvironmentEntryWithAnEmptyName, IsRefused)
{
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed,
                      decode_launch_spec(wire_with([](auto& w) { w.environment.push_back("=value"); })));
}

TEST(ALaunchSpecWithANulInTheEnvironment, IsRefused)
{
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, decode_launch_spec(wire_with([](auto& w) {
                          w.environment.push_back(std::string("A=1\0B=2", 7));
                      })));
}

TEST(ASyscallRuleWithoutAValidName, IsRefused)
{
    for (const std::string& name :
         std::vector<std::string>{"", "Listen", "listen;", "sys call", std::string(65, 'a')}) {
        NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, decode_launch_spec(wire_with([&](auto& w) {
                              w.denied_syscalls.push_back({name, EPERM, {}});
                          })));
        EXPECT_THAT(e->what(), HasSubstr("denied_syscalls")) << name;
    }
}

TEST(ASyscallRuleWithAnErrnoOutsideTheKernelsRange, IsRefused)
{
    for (const std::int32_t value : {0, -1, kMaxErrno + 1}) {
        NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, decode_launch_spec(wire_with([&](auto& w) {
                              w.denied_syscalls.push_back({"listen", value, {}});
                          })));
        EXPECT_THAT(e->what(), HasSubstr("errno")) << value;
    }
}

TEST(ASyscallRuleWithTwoConditions, IsRefused)
{
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, decode_launch_spec(wire_with([](auto& w) {
                          w.denied_syscalls.push_back({"ioctl", EPERM, {{1, kLow32Bits, 1}, {1, kLow32Bits, 2}}});
                      })));
    EXPECT_THAT(e->what(), HasSubstr("at most one"));
}

TEST(ASyscallRuleOnAnArgumentAboveTheSixth, IsRefused)
{
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, decode_launch_spec(wire_with([](auto& w) {
                          w.denied_syscalls.push_back({"ioctl", EPERM, {{6, kLow32Bits, 1}}});
                      })));
    EXPECT_THAT(e->what(), HasSubstr("index"));
}

TEST(ASyscallRuleWhoseValueHasBitsOutsideItsMask, IsRefused)
{
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, decode_launch_spec(wire_with([](auto& w) {
                          w.denied_syscalls.push_back({"ioctl", EPERM, {{1, kLow32Bits, 1ULL << 32U}}});
                      })));
    EXPECT_THAT(e->what(), HasSubstr("mask"));
}

TEST(ALaunchSpecWhoseDirsBaseIsNotAbsolute, IsRefused)
{
    for (const std::string base : {"", "var/lib/nr", "/var/lib/../nr", "/var/lib/nr/"}) {
        NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed,
                          decode_launch_spec(wire_with([&](auto& w) { w.dirs_base = base; })));
        EXPECT_THAT(e->what(), HasSubstr("dirs_base")) << base;
    }
}

TEST(APrivateDirectoryThatIsNotACanonicalRelativePath, IsRefused)
{
    for (const std::string& dir : std::vector<std::string>{"", "/etc", "a/../b", "a//b", "a/", "./a", "a\nb"}) {
        NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed,
                          decode_launch_spec(wire_with([&](auto& w) { w.private_dirs.push_back(dir); })));
        EXPECT_THAT(e->what(), HasSubstr("private_dirs")) << dir;
    }
}

TEST(AnAdmissionQueueThatIsNotACanonicalRelativePath, IsRefused)
{
    for (const std::string queue : {"/run/queue", "../queue", "q/./r"}) {
        NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed,
                          decode_launch_spec(wire_with([&](auto& w) { w.admission_queue = queue; })));
        EXPECT_THAT(e->what(), HasSubstr("admission_queue")) << queue;
    }
}

TEST(ACheckedDirectoryThatIsNotACanonicalAbsolutePath, IsRefused)
{
    for (const std::string path : {"", "srv/work", "/srv/../etc", "/srv//work"}) {
        NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, decode_launch_spec(wire_with([&](auto& w) {
                              w.checked_dirs.push_back({path, 1, 2});
                          })));
        EXPECT_THAT(e->what(), HasSubstr("checked_dirs")) << path;
    }
}

TEST(AProtectedPathThatIsNotACanonicalRelativePath, IsRefused)
{
    for (const std::string& path : std::vector<std::string>{"", "/etc/passwd", "../.bashrc", "a//b", "a/", "./a",
                                                            "a\nb", std::string("a\0b", 3), std::string(1025, 'a')}) {
        NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, decode_launch_spec(wire_with([&](auto& w) {
                              w.protected_paths.push_back({path, false});
                          })));
        EXPECT_THAT(e->what(), HasSubstr("protected_paths")) << path;
    }
}

TEST(ProtectedPathsListedTwiceOrOneBeneathAnother, AreRefused)
{
    NR_EXPECT_REFUSED(twice, ErrorKind::LaunchFailed, decode_launch_spec(wire_with([](auto& w) {
                          w.protected_paths.push_back({".claude/settings.json", true});
                      })));
    NR_EXPECT_REFUSED(beneath, ErrorKind::LaunchFailed, decode_launch_spec(wire_with([](auto& w) {
                          w.protected_paths.push_back({".claude/hooks/x", false});
                      })));
}

TEST(MoreThanTheBoundOfProtectedPaths, AreRefused)
{
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, decode_launch_spec(wire_with([](auto& w) {
                          w.protected_paths.clear();
                          for (std::size_t i = 0; i <= kMaxProtectedPaths; ++i) {
                              w.protected_paths.push_back({"p" + std::to_string(i), false});
                          }
                      })));
    EXPECT_THAT(e->what(), HasSubstr("more than 64"));
}

TEST(AProtectedBaseThatIsNotACanonicalAbsolutePath, IsRefused)
{
    for (const std::string base : {"", "var/lib/nr/home", "/var/lib/../home", "/home/"}) {
        NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed,
                          decode_launch_spec(wire_with([&](auto& w) { w.protected_base = base; })));
        EXPECT_THAT(e->what(), HasSubstr("protected_base")) << base;
    }
}

TEST(AProtectedBaseWithoutProtectedPaths, IsRefusedRatherThanIgnored)
{
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed,
                      decode_launch_spec(wire_with([](auto& w) { w.protected_paths.clear(); })));
    EXPECT_THAT(e->what(), HasSubstr("protected_base"));
}
