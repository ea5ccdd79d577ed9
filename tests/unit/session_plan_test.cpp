// SPDX-License-Identifier: Apache-2.0
#include "core/plan/session_plan.h"
#include "core/plan/unit_syscalls.h"

#include "config_fixtures.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

using namespace nr::core;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

constexpr const char* kLauncher = "/usr/libexec/native-runtime/native-runtime-launch";
constexpr const char* kClaimShim = "/usr/libexec/native-runtime/native-runtime-claim";
constexpr const char* kToken = "claim-0123456789abcdef";
constexpr const char* kSecret = "sk-ant-SECRET-must-never-reach-systemd";

Config config()
{
    auto c = nr::test::two_adapter_config();
    c.bwrap_path = "/usr/bin/bwrap";
    c.read_only_paths = {"/usr", "/etc/ssl"};
    c.hidden_paths = {"/home", "/root"};
    c.limits.memory_max_bytes = 4ULL << 30U;
    c.limits.tasks_max = 1024;
    c.limits.cpu_quota_percent = 200;
    c.limits.runtime_max_sec = 7200;
    c.limits.tmp_size_bytes = 128ULL << 20U;
    c.adapters.at("claude").read_only_paths = {"/opt/claude"};
    auto& codex = c.adapters.at("codex");
    codex.network = NetworkMode::Offline;
    codex.nested_userns = true;
    return c;
}

SessionRequest request()
{
    SessionRequest r;
    r.owner = "alice";
    r.chat = "c-1";
    r.job = "job7";
    r.adapter = "claude";
    r.argv = {"claude", "--print", "hello"};
    r.environment = {{"ANTHROPIC_API_KEY", kSecret}, {"TERM", "xterm"}};
    return r;
}

const RunAsUser kUser{"alice", 1000, 1001};

HostFacts host()
{
    return HostFacts{kLauncher, {{"/bin", "usr/bin"}}, {}};
}

SessionPlan plan(const SessionRequest& r = request(), const Config& c = config(), const RunAsUser& u = kUser,
                 const std::string& token = kToken)
{
    return plan_session(c, r, u, host(), token);
}

template <typename T> const T* value_of(const SessionPlan& p, const std::string& name)
{
    const auto* prop = find_property(p.properties, name);
    if (prop == nullptr) {
        ADD_FAILURE() << "missing property " << name;
        return nullptr;
    }
    const auto* value = std::get_if<T>(&prop->value);
    if (value == nullptr) {
        ADD_FAILURE() << "property " << name << " has another type";
    }
    return value;
}

// A pointer into a temporary plan would dangle (ASan found one): a plan
// must outlive the value read from it.
template <typename T> const T* value_of(SessionPlan&& p, const std::string& name) = delete;

#define EXPECT_PROPERTY(p, type, name, expected)                                                                       \
    do {                                                                                                               \
        const auto* v_ = value_of<type>(p, name);                                                                      \
        ASSERT_NE(v_, nullptr);                                                                                        \
        EXPECT_EQ(*v_, expected) << name;                                                                              \
    } while (false)

// Every string carried by a property value, for "is X anywhere?" checks.
std::vector<std::string> strings_in(const PropertyValue& value)
{
    return std::visit(
        [](const auto& v) -> std::vector<std::string> {
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, std::string>) {
                return {v};
            } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
                return v;
            } else if constexpr (std::is_same_v<V, ExecCommand>) {
                std::vector<std::string> out{v.path};
                out.insert(out.end(), v.argv.begin(), v.argv.end());
                return out;
            } else if constexpr (std::is_same_v<V, JournalFields>) {
                return v.fields;
            } else if constexpr (std::is_same_v<V, std::uint64_t>) {
                return {std::to_string(v)};
            } else if constexpr (std::is_same_v<V, bool>) {
                return {v ? "true" : "false"};
            } else if constexpr (std::is_same_v<V, NameList>) {
                auto out = v.names;
                out.insert(out.begin(), v.allow_list ? "allow" : "deny");
                return out;
            } else if constexpr (std::is_same_v<V, ErrorNumber>) {
                return {std::to_string(v.value)};
            } else if constexpr (std::is_same_v<V, AddressList>) {
                std::vector<std::string> out;
                for (const auto& prefix : v.prefixes) {
                    out.push_back(format_ip_prefix(prefix));
                }
                return out;
            } else if constexpr (std::is_same_v<V, PassedDescriptorSlot>) {
                return {"descriptor:" + v.name};
            } else {
                static_assert(std::is_same_v<V, StdioSlot>, "a new PropertyValue type needs rendering here");
                return {"stdio:" + std::to_string(static_cast<int>(v))};
            }
        },
        value);
}

std::vector<std::string> all_property_strings(const SessionPlan& p)
{
    std::vector<std::string> out;
    for (const auto& prop : p.properties) {
        out.push_back(prop.name);
        const auto strings = strings_in(prop.value);
        out.insert(out.end(), strings.begin(), strings.end());
    }
    return out;
}

void expect_plan_refused(const SessionRequest& r, ErrorKind kind, const std::string& fragment)
{
    const auto e = nr::test::error_from([&] { (void)plan(r); });
    ASSERT_TRUE(e.has_value()) << "request was planned";
    EXPECT_EQ(error_name(e->kind()), error_name(kind)) << e->what();
    EXPECT_THAT(e->what(), HasSubstr(fragment));
}

} // namespace

// ---------------------------------------------------------- names and tree

TEST(APlannedSession, IsNamedAfterOwnerAndChatInTheOwnersSlice)
{
    const auto p = plan();
    EXPECT_EQ(p.unit_name, "native-runtime-alice-c\\x2d1.service");
    EXPECT_EQ(p.slice, "nativeruntime-alice.slice");
    EXPECT_EQ(p.owner, "alice");
    EXPECT_EQ(p.chat, "c-1");
    EXPECT_EQ(p.job, "job7");
    EXPECT_EQ(p.adapter, "claude");
    EXPECT_EQ(p.user.name, "alice");
    EXPECT_EQ(p.user.uid, 1000U);
    EXPECT_EQ(p.user.gid, 1001U);
}

TEST(OwnerRoot, LiesUnderDataDir)
{
    EXPECT_EQ(owner_root(config(), "alice"), "/var/lib/nr/native-runtime/alice");
}

TEST(APlannedSession, HasItsHomeInTheOwnersTreeUnderDataDir)
{
    EXPECT_EQ(plan().home, "/var/lib/nr/native-runtime/alice/home");
}

TEST(ASessionWithoutAWorkspace, UsesTheChatsDefaultWorkspaceAndCreatesIt)
{
    const auto p = plan();
    EXPECT_EQ(p.workspace, "/var/lib/nr/native-runtime/alice/chats/c-1/workspace");
    EXPECT_EQ(p.launch.dirs.base, "/var/lib/nr");
    EXPECT_THAT(p.launch.dirs.relative,
                ElementsAre("native-runtime/alice/home", "native-runtime/alice/chats/c-1/workspace"));
}

TEST(ASessionWithAnExplicitWorkspace, UsesItAndCreatesOnlyTheHome)
{
    auto r = request();
    r.workspace = "/srv/projects/app";
    const auto p = plan(r);
    EXPECT_EQ(p.workspace, "/srv/projects/app");
    EXPECT_THAT(p.launch.dirs.relative, ElementsAre("native-runtime/alice/home"));
    EXPECT_TRUE(std::find(p.launch.bwrap_argv.begin(), p.launch.bwrap_argv.end(), "/srv/projects/app") !=
                p.launch.bwrap_argv.end());
}

TEST(AnExplicitWorkspaceInsideAReadOnlyPath, IsAcceptedBecauseItIsMountedAfterItsParent)
{
    auto r = request();
    r.workspace = "/usr/src/app";
    EXPECT_EQ(plan(r).workspace, "/usr/src/app");
}

// ------------------------------------------------------ workspace refusals

TEST(TheRootAsWorkspace, IsRefused)
{
    auto r = request();
    r.workspace = "/";
    expect_plan_refused(r, ErrorKind::InvalidPath, "workspace");
}

TEST(ARelativeWorkspace, IsRefused)
{
    auto r = request();
    r.workspace = "srv/app";
    expect_plan_refused(r, ErrorKind::InvalidPath, "absolute");
}

TEST(ANonCanonicalWorkspace, IsRefused)
{
    auto r = request();
    r.workspace = "/srv/app/../../var/lib/nr";
    expect_plan_refused(r, ErrorKind::InvalidPath, "canonical");
}

TEST(AWorkspaceInsideDataDir, IsRefused)
{
    auto r = request();
    r.workspace = "/var/lib/nr/native-runtime/bob/home";
    expect_plan_refused(r, ErrorKind::InvalidPath, "overlaps /var/lib/nr");
}

TEST(AWorkspaceContainingDataDir, IsRefused)
{
    auto r = request();
    r.workspace = "/var/lib";
    expect_plan_refused(r, ErrorKind::InvalidPath, "overlaps /var/lib/nr");
}

TEST(AWorkspaceOverlappingAHiddenPath, IsRefusedInEitherDirection)
{
    auto r = request();
    r.workspace = "/home/alice/project";
    expect_plan_refused(r, ErrorKind::InvalidPath, "overlaps /home");
    r.workspace = "/root";
    expect_plan_refused(r, ErrorKind::InvalidPath, "overlaps /root");
}

TEST(AWorkspaceBesideDataDir, IsAccepted)
{
    auto r = request();
    r.workspace = "/var/lib/nrx";
    EXPECT_EQ(plan(r).workspace, "/var/lib/nrx");
}

TEST(AWorkspaceContainingAReadOnlyPath, IsRefused)
{
    auto r = request();
    r.workspace = "/etc";
    expect_plan_refused(r, ErrorKind::InvalidPath, "contains the read-only path /etc/ssl");
    r.workspace = "/usr";
    expect_plan_refused(r, ErrorKind::InvalidPath, "contains the read-only path /usr");
}

TEST(AWorkspaceContainingTheAdaptersReadOnlyPath, IsRefused)
{
    auto r = request();
    r.workspace = "/opt";
    expect_plan_refused(r, ErrorKind::InvalidPath, "contains the read-only path /opt/claude");
    // Control: another adapter without that grant may use /opt.
    r.adapter = "codex";
    r.argv = {"codex"};
    r.environment.clear(); // the fixture request carries claude credentials
    r.environment = {};
    EXPECT_EQ(plan(r).workspace, "/opt");
}

TEST(AWorkspaceOverlappingProcDevOrTmp, IsRefusedBecauseTheSandboxMountsItsOwn)
{
    auto r = request();
    for (const char* reserved : {"/tmp/work", "/tmp", "/dev/shm", "/proc"}) {
        SCOPED_TRACE(reserved);
        r.workspace = reserved;
        expect_plan_refused(r, ErrorKind::InvalidPath, "which the sandbox provides itself");
    }
    r.workspace = "/tmpfiles/work"; // component-wise, not a prefix match
    EXPECT_EQ(plan(r).workspace, "/tmpfiles/work");
}

// --------------------------------------------------- ids, adapter, user

TEST(AnInvalidId, IsRefusedNamingTheField)
{
    auto r = request();
    r.owner = "../etc";
    expect_plan_refused(r, ErrorKind::InvalidArgument, "owner");
    r = request();
    r.chat = "a/b";
    expect_plan_refused(r, ErrorKind::InvalidArgument, "chat");
    r = request();
    r.job = "job 7";
    expect_plan_refused(r, ErrorKind::InvalidArgument, "job");
    r = request();
    r.adapter = "-claude";
    expect_plan_refused(r, ErrorKind::InvalidArgument, "adapter");
}

TEST(AnEmptyJob, IsAllowedAndLeavesNoJobJournalField)
{
    auto r = request();
    r.job = "";
    const auto p = plan(r);
    const auto* fields = value_of<JournalFields>(p, "LogExtraFields");
    ASSERT_NE(fields, nullptr);
    EXPECT_THAT(fields->fields,
                ElementsAre("NATIVE_RUNTIME_OWNER=alice", "NATIVE_RUNTIME_CHAT=c-1", "NATIVE_RUNTIME_ADAPTER=claude"));
}

TEST(AnUnknownAdapter, IsRefusedWithUnknownAdapter)
{
    auto r = request();
    r.adapter = "gemini";
    expect_plan_refused(r, ErrorKind::UnknownAdapter, "gemini");
}

TEST(ARootRunAsUser, IsRefused)
{
    const auto e = nr::test::error_from([&] { (void)plan(request(), config(), RunAsUser{"root", 0, 0}); });
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->kind(), ErrorKind::AccessDenied);
    EXPECT_THAT(e->what(), HasSubstr("root"));
}

// ---------------------------------------------------------------- argv

TEST(AnEmptyArgv, IsRefused)
{
    auto r = request();
    r.argv = {};
    expect_plan_refused(r, ErrorKind::InvalidArgument, "argv must not be empty");
}

TEST(AnArgvOf256Elements, IsAcceptedButOneMoreIsRefused)
{
    auto r = request();
    r.argv.assign(256, "x");
    r.argv.front() = "claude";
    EXPECT_NO_THROW((void)plan(r));
    r.argv.push_back("x");
    expect_plan_refused(r, ErrorKind::InvalidArgument, "more than 256");
}

TEST(AnArgvOver128KiB, IsRefused)
{
    auto r = request();
    // Each element costs its size plus a terminating NUL.
    r.argv = {"claude", std::string(128 * 1024 - 7 - 1, 'x')};
    EXPECT_NO_THROW((void)plan(r));
    r.argv.back().push_back('x');
    expect_plan_refused(r, ErrorKind::InvalidArgument, "larger than 128 KiB");
}

TEST(AnArgvWithANulByte, IsRefused)
{
    auto r = request();
    r.argv = {"claude", std::string("a\0b", 3)};
    expect_plan_refused(r, ErrorKind::InvalidArgument, "NUL");
}

TEST(TheExecutableBasename, IsReplacedByTheConfiguredAbsolutePath)
{
    const auto& argv = plan().launch.bwrap_argv;
    const auto sep = std::find(argv.begin(), argv.end(), "--");
    ASSERT_NE(sep, argv.end());
    EXPECT_THAT(std::vector<std::string>(sep + 1, argv.end()), ElementsAre("/usr/bin/claude", "--print", "hello"));
}

TEST(TheAbsoluteExecutable, IsKeptAsIs)
{
    auto r = request();
    r.argv = {"/usr/bin/claude", "-p"};
    const auto argv = plan(r).launch.bwrap_argv;
    EXPECT_THAT(std::vector<std::string>(argv.end() - 3, argv.end()), ElementsAre("--", "/usr/bin/claude", "-p"));
}

TEST(AnotherExecutable, IsRefused)
{
    for (const char* other : {"bash", "/bin/sh", "/usr/local/bin/claude", "./claude", "claude ", "", "codex"}) {
        SCOPED_TRACE(other);
        auto r = request();
        r.argv = {other, "-c", "id"};
        expect_plan_refused(r, ErrorKind::InvalidArgument, "is not the executable of adapter claude");
    }
}

// --------------------------------------------------------- environment

TEST(TheSessionEnvironment, IsBuiltFromTheAdapterPolicy)
{
    const auto p = plan();
    EXPECT_THAT(p.launch.environment, Contains(std::string("ANTHROPIC_API_KEY=") + kSecret));
    EXPECT_THAT(p.launch.environment, Contains("HOME=/var/lib/nr/native-runtime/alice/home"));
    EXPECT_THAT(p.launch.environment, Contains("USER=alice"));
    EXPECT_THAT(p.launch.environment, Contains("TERM=xterm"));
}

TEST(AForbiddenEnvironmentVariable, RefusesTheWholeSession)
{
    auto r = request();
    r.environment["LD_PRELOAD"] = "/tmp/evil.so";
    expect_plan_refused(r, ErrorKind::InvalidEnvironment, "LD_PRELOAD");
}

// ------------------------------------------------------------- sandbox

TEST(TheSandbox, MountsTheGrantsReadOnlyAndOnlyHomeAndWorkspaceWritable)
{
    const auto& argv = plan().launch.bwrap_argv;
    std::vector<std::string> ro;
    std::vector<std::string> rw;
    const auto sep = std::find(argv.begin(), argv.end(), "--");
    for (auto it = argv.begin(); it + 2 < sep; ++it) {
        if (*it == "--ro-bind") {
            ro.push_back(*(it + 1));
        } else if (*it == "--bind") {
            rw.push_back(*(it + 1));
        }
    }
    EXPECT_THAT(ro, ElementsAre("/etc/ssl", "/opt/claude", "/usr"));
    EXPECT_THAT(rw, ElementsAre("/var/lib/nr/native-runtime/alice/chats/c-1/workspace",
                                "/var/lib/nr/native-runtime/alice/home"));
}

TEST(TheSandbox, FollowsTheAdapterProfileAndLimits)
{
    const auto claude = plan().launch.bwrap_argv;
    EXPECT_THAT(claude, Contains("--share-net"));
    EXPECT_THAT(claude, Contains("--disable-userns"));
    EXPECT_THAT(claude, Contains("134217728")); // tmp size
    EXPECT_EQ(claude.front(), "/usr/bin/bwrap");

    auto r = request();
    r.adapter = "codex";
    r.argv = {"codex"};
    r.environment.clear(); // the fixture request carries claude credentials
    r.environment = {};
    const auto codex = plan(r).launch.bwrap_argv;
    EXPECT_THAT(codex, Not(Contains("--share-net")));
    EXPECT_THAT(codex, Not(Contains("--disable-userns")));
    EXPECT_EQ(codex.back(), "/opt/codex/bin/codex");
}

TEST(TheSandbox, CreatesTheHostsRootSymlinksAndStartsInTheWorkspace)
{
    const auto argv = plan().launch.bwrap_argv;
    const std::vector<std::string> symlink{"--symlink", "usr/bin", "/bin"};
    EXPECT_NE(std::search(argv.begin(), argv.end(), symlink.begin(), symlink.end()), argv.end());
    const std::vector<std::string> chdir{"--chdir", "/var/lib/nr/native-runtime/alice/chats/c-1/workspace"};
    EXPECT_NE(std::search(argv.begin(), argv.end(), chdir.begin(), chdir.end()), argv.end());
}

TEST(TheLaunchSpec, CarriesTheSeccompPolicy)
{
    const auto p = plan();
    EXPECT_TRUE(p.launch.seccomp.kill_foreign_abis);
    EXPECT_EQ(p.launch.seccomp.denied, seccomp_policy_for(config().adapters.at("claude")).denied);
}

// ---------------------------------------------------------- unit properties

TEST(TheUnit, RunsAsTheSessionUserWithoutPrivileges)
{
    const auto p = plan();
    EXPECT_PROPERTY(p, std::string, "User", "1000");
    EXPECT_PROPERTY(p, std::string, "Group", "1001");
    EXPECT_PROPERTY(p, bool, "NoNewPrivileges", true);
    EXPECT_PROPERTY(p, std::uint64_t, "CapabilityBoundingSet", 0U);
    EXPECT_PROPERTY(p, std::uint64_t, "AmbientCapabilities", 0U);
}

TEST(TheUnit, HidesOtherProcessesButKeepsProcSysReadable)
{
    const auto p = plan();
    EXPECT_PROPERTY(p, std::string, "ProtectProc", "invisible");
    EXPECT_PROPERTY(p, std::string, "ProcSubset", "all");
}

TEST(TheUnit, IsHardened)
{
    const auto p = plan();
    EXPECT_PROPERTY(p, bool, "ProtectControlGroups", true);
    EXPECT_PROPERTY(p, std::vector<std::string>, "SystemCallArchitectures", std::vector<std::string>{"native"});
}

TEST(TheUnit, InstallsNoSeccompFilterThatInspectsAnArgumentOfAHotCall)
{
    // Each of these makes systemd install a filter that reads an argument
    // of a call an agent makes all the time (openat's mode, mmap's
    // protection) or forbids what bwrap needs (namespaces): the kernel could
    // then cache no verdict for it (docs/security-model.md, "One cacheable
    // filter stack"). Their protections are the launcher's program's,
    // LimitRTPRIO=0's, or come from elsewhere.
    const auto p = plan();
    for (const char* name : {"RestrictSUIDSGID", "LockPersonality", "RestrictRealtime", "MemoryDenyWriteExecute",
                             "RestrictNamespaces", "SystemCallLog"}) {
        EXPECT_EQ(find_property(p.properties, name), nullptr) << name;
    }
}

TEST(TheUnit, DeniesTheSyscallsOfSystemdsPrivilegedGroupsByNameWithEperm)
{
    const auto p = plan();
    const auto* filter = value_of<NameList>(p, "SystemCallFilter");
    ASSERT_NE(filter, nullptr);
    EXPECT_FALSE(filter->allow_list);
    EXPECT_EQ(filter->names, unit_denied_syscall_candidates());
    for (const char* name : {"swapon", "reboot", "kexec_load", "init_module", "ptrace", "pidfd_getfd", "modify_ldt",
                             "settimeofday", "iopl", "ustat"}) {
        EXPECT_THAT(filter->names, Contains(name));
    }
    for (const char* needed_by_bwrap : {"mount", "pivot_root", "unshare", "setns", "capset", "setgroups"}) {
        EXPECT_THAT(filter->names, Not(Contains(needed_by_bwrap)));
    }
    EXPECT_PROPERTY(p, ErrorNumber, "SystemCallErrorNumber", ErrorNumber{EPERM});
}

TEST(TheUnit, AloneDeniesTheSyscallsTheIntegrationTestsProbeItsFilterWith)
{
    // TheSyscallsOnlyTheSessionUnitDenies.* (privilege_test.cpp) reads an
    // EPERM for these inside as the unit's filter's: the launcher's own
    // program must not name them.
    const auto p = plan();
    const auto* filter = value_of<NameList>(p, "SystemCallFilter");
    ASSERT_NE(filter, nullptr);
    for (const char* name : {"pidfd_getfd", "modify_ldt", "ustat"}) {
        EXPECT_THAT(filter->names, Contains(name));
        for (const auto& rule : p.launch.seccomp.denied) {
            EXPECT_NE(rule.name, name);
        }
    }
}

TEST(TheUnit, LeavesOutTheDeniedSyscallsThisHostsLibseccompCannotName)
{
    auto h = host();
    h.unknown_syscalls = {"vm86", "ustat"};
    const auto p = plan_session(config(), request(), kUser, h, kToken);
    const auto* filter = value_of<NameList>(p, "SystemCallFilter");
    ASSERT_NE(filter, nullptr);
    EXPECT_EQ(filter->names.size(), unit_denied_syscall_candidates().size() - 2);
    EXPECT_THAT(filter->names, Not(Contains("vm86")));
    EXPECT_THAT(filter->names, Not(Contains("ustat")));
    EXPECT_THAT(filter->names, Contains("ptrace"));
}

TEST(TheUnit, AllowsOnlyUnixInternetAndNetlinkSockets)
{
    const auto p = plan();
    EXPECT_PROPERTY(p, NameList, "RestrictAddressFamilies",
                    (NameList{true, {"AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"}}));
}

TEST(TheUnit, SeesTheSystemReadOnlyExceptDataDirAndHidesHomesAndTmp)
{
    const auto p = plan();
    EXPECT_PROPERTY(p, std::string, "ProtectSystem", "strict");
    // The default workspace and the home lie in data_dir.
    EXPECT_PROPERTY(p, std::vector<std::string>, "ReadWritePaths", std::vector<std::string>{"-/var/lib/nr"});
    EXPECT_PROPERTY(p, bool, "PrivateMounts", true);
    EXPECT_PROPERTY(p, std::string, "ProtectHome", "yes");
    EXPECT_PROPERTY(p, bool, "PrivateTmp", true);
}

TEST(TheUnit, MapsOnlyRootAndTheSessionUserAndAllowsOnlyPseudoDevices)
{
    const auto p = plan();
    EXPECT_PROPERTY(p, bool, "PrivateUsers", true);
    EXPECT_PROPERTY(p, std::string, "DevicePolicy", "closed");
}

TEST(ARequestedWorkspaceOutsideDataDir, IsWritableInTheUnitToo)
{
    auto r = request();
    r.workspace = "/srv/projects/alice";
    const auto p = plan(r);
    EXPECT_PROPERTY(p, std::vector<std::string>, "ReadWritePaths",
                    (std::vector<std::string>{"-/var/lib/nr", "-/srv/projects/alice"}));
    EXPECT_PROPERTY(p, std::string, "ProtectHome", "yes");
}

TEST(ASessionThatNeedsAPathUnderAHomeDirectory, SeesTheHomesReadOnlyInsteadOfNotAtAll)
{
    auto c = config();
    c.hidden_paths = {"/root"};
    auto r = request();
    r.workspace = "/home/alice/project";
    const auto p = plan(r, c);
    EXPECT_PROPERTY(p, std::string, "ProtectHome", "read-only");
    EXPECT_PROPERTY(p, std::vector<std::string>, "ReadWritePaths",
                    (std::vector<std::string>{"-/var/lib/nr", "-/home/alice/project"}));

    c.adapters.at("claude").read_only_paths = {"/root/claude"};
    c.hidden_paths = {};
    const auto with_grant = plan(request(), c);
    EXPECT_PROPERTY(with_grant, std::string, "ProtectHome", "read-only");
}

TEST(ASessionThatNeedsAPathUnderTmp, KeepsTheHostsTmpRatherThanPlanningPrivateTmpOff)
{
    auto r = request();
    r.workspace = "/var/tmp/alice-project";
    const auto p = plan(r);
    EXPECT_EQ(find_property(p.properties, "PrivateTmp"), nullptr);
    const auto control = plan();
    EXPECT_PROPERTY(control, bool, "PrivateTmp", true);

    auto c = config();
    c.read_only_paths.push_back("/tmp/shared-tools");
    EXPECT_EQ(find_property(plan(request(), c).properties, "PrivateTmp"), nullptr);
}

TEST(TheUnit, ForbidsRealtimeSchedulingThroughAZeroRtprioLimit)
{
    // With no CAP_SYS_NICE (empty bounding set) and RLIMIT_RTPRIO 0, soft
    // and hard, the kernel refuses SCHED_FIFO/SCHED_RR; SCHED_DEADLINE needs
    // the capability anyway. RestrictRealtime= without a filter.
    const auto p = plan();
    EXPECT_PROPERTY(p, std::uint64_t, "LimitRTPRIO", 0U);
}

TEST(TheUnit, LeavesKernelTunablesWritableBecauseBwrapDisableUsernsWritesThem)
{
    // bwrap --disable-userns writes /proc/sys/user/max_user_namespaces
    // through the unit's /proc; ProtectKernelTunables=yes would break it.
    EXPECT_EQ(find_property(plan().properties, "ProtectKernelTunables"), nullptr);
}

TEST(TheUnit, IsKilledAndCollectedAsAWholeInTheOwnersSlice)
{
    const auto p = plan();
    EXPECT_PROPERTY(p, std::string, "KillMode", "control-group");
    EXPECT_PROPERTY(p, std::string, "CollectMode", "inactive-or-failed");
    EXPECT_PROPERTY(p, std::string, "Slice", "nativeruntime-alice.slice");
    EXPECT_PROPERTY(p, std::string, "Type", "exec");
    EXPECT_PROPERTY(p, std::string, "WorkingDirectory", "/");
}

TEST(TheUnit, TakesTheCallersThreeStdioDescriptors)
{
    const auto p = plan();
    EXPECT_PROPERTY(p, StdioSlot, "StandardInputFileDescriptor", StdioSlot::Input);
    EXPECT_PROPERTY(p, StdioSlot, "StandardOutputFileDescriptor", StdioSlot::Output);
    EXPECT_PROPERTY(p, StdioSlot, "StandardErrorFileDescriptor", StdioSlot::Error);
}

TEST(TheUnit, AppliesTheConfiguredLimits)
{
    const auto p = plan();
    EXPECT_PROPERTY(p, std::uint64_t, "MemoryMax", 4ULL << 30U);
    EXPECT_PROPERTY(p, std::uint64_t, "TasksMax", 1024U);
    EXPECT_PROPERTY(p, std::uint64_t, "CPUQuotaPerSecUSec", 2000000U); // 200 %
    EXPECT_PROPERTY(p, std::uint64_t, "RuntimeMaxUSec", 7200ULL * 1000000U);
}

TEST(TheUnitOnASystemdThatCannotPassDescriptors, StartsTheClaimShimWithTheTokenWhichThenExecsTheLauncher)
{
    const auto p = plan();
    const auto* exec = value_of<ExecCommand>(p, "ExecStart");
    ASSERT_NE(exec, nullptr);
    EXPECT_EQ(exec->path, kClaimShim);
    EXPECT_THAT(exec->argv, ElementsAre(kClaimShim, "--claim", kToken));
    EXPECT_EQ(find_property(p.properties, "ExtraFileDescriptors"), nullptr);
}

TEST(TheUnitOnASystemdThatPassesDescriptors, GetsTheHelperChannelAndALauncherThatReadsItsSpecFromThere)
{
    auto facts = host();
    facts.spec_delivery = SpecDelivery::HelperChannel;
    const auto p = plan_session(config(), request(), kUser, facts, kToken);
    EXPECT_PROPERTY(p, PassedDescriptorSlot, "ExtraFileDescriptors", PassedDescriptorSlot{"nr-helper-channel"});
    const auto* exec = value_of<ExecCommand>(p, "ExecStart");
    ASSERT_NE(exec, nullptr);
    EXPECT_EQ(exec->path, kLauncher);
    EXPECT_THAT(exec->argv, ElementsAre(kLauncher, "--claim", kToken));
}

TEST(TheCanaryOnASystemdThatPassesDescriptors, TakesItsSpecTheSameWay)
{
    auto facts = host();
    facts.spec_delivery = SpecDelivery::HelperChannel;
    const auto p = plan_canary(config(), kUser, facts, kToken, "/usr/bin/true");
    EXPECT_PROPERTY(p, PassedDescriptorSlot, "ExtraFileDescriptors", PassedDescriptorSlot{"nr-helper-channel"});
}

TEST(TheUnit, IsTaggedInTheJournalAndDescribed)
{
    const auto p = plan();
    const auto* fields = value_of<JournalFields>(p, "LogExtraFields");
    ASSERT_NE(fields, nullptr);
    EXPECT_THAT(fields->fields, ElementsAre("NATIVE_RUNTIME_OWNER=alice", "NATIVE_RUNTIME_CHAT=c-1",
                                            "NATIVE_RUNTIME_ADAPTER=claude", "NATIVE_RUNTIME_JOB=job7"));
    EXPECT_EQ(session_journal_fields(p), fields->fields);
    EXPECT_PROPERTY(p, std::string, "Description", "native-runtime session owner=alice chat=c-1 adapter=claude");
}

TEST(JournalField, ReadsAFieldBackByExactName)
{
    const std::vector<std::string> fields{"NATIVE_RUNTIME_OWNER=alice", "NATIVE_RUNTIME_CHATX=wrong",
                                          "NATIVE_RUNTIME_CHAT=c-1", "NATIVE_RUNTIME_ARGS=a=b"};
    EXPECT_EQ(journal_field(fields, "NATIVE_RUNTIME_OWNER"), "alice");
    EXPECT_EQ(journal_field(fields, "NATIVE_RUNTIME_CHAT"), "c-1");
    EXPECT_EQ(journal_field(fields, "NATIVE_RUNTIME_ARGS"), "a=b");
    EXPECT_EQ(journal_field(fields, "NATIVE_RUNTIME_JOB"), "");
    EXPECT_EQ(journal_field(fields, "NATIVE_RUNTIME"), "");
    EXPECT_EQ(journal_field(session_journal_fields(plan()), "NATIVE_RUNTIME_JOB"), "job7");
}

TEST(TheUnitProperties, HaveUniqueNames)
{
    std::set<std::string> names;
    for (const auto& prop : plan().properties) {
        EXPECT_TRUE(names.insert(prop.name).second) << "duplicate " << prop.name;
    }
    EXPECT_GE(names.size(), 35U);
}

TEST(ACredentialValue, NeverAppearsInAnyUnitProperty)
{
    const auto p = plan();
    // Positive control: the secret did reach the (private) launch spec.
    ASSERT_THAT(p.launch.environment, Contains(std::string("ANTHROPIC_API_KEY=") + kSecret));
    const auto strings = all_property_strings(p);
    ASSERT_THAT(strings, Contains(kToken)); // the walk does see property strings
    for (const auto& s : strings) {
        EXPECT_THAT(s, Not(HasSubstr(kSecret)));
        EXPECT_THAT(s, Not(HasSubstr("ANTHROPIC_API_KEY")));
    }
    EXPECT_EQ(find_property(p.properties, "Environment"), nullptr);
    EXPECT_EQ(find_property(p.properties, "SetCredential"), nullptr);
}

TEST(TheClaimToken, IsTheOnlyPartOfTheUnitThatDependsOnTheTokenOrTheSecret)
{
    const auto a = plan(request(), config(), kUser, "token-A");
    auto other = request();
    other.environment["ANTHROPIC_API_KEY"] = "a-completely-different-secret";
    const auto b = plan(other, config(), kUser, "token-B");

    const auto* exec_a = value_of<ExecCommand>(a, "ExecStart");
    const auto* exec_b = value_of<ExecCommand>(b, "ExecStart");
    ASSERT_NE(exec_a, nullptr);
    ASSERT_NE(exec_b, nullptr);
    EXPECT_EQ(exec_a->path, exec_b->path);
    ASSERT_EQ(exec_a->argv.size(), exec_b->argv.size());
    std::vector<std::size_t> differing;
    for (std::size_t i = 0; i < exec_a->argv.size(); ++i) {
        if (exec_a->argv[i] != exec_b->argv[i]) {
            differing.push_back(i);
        }
    }
    EXPECT_THAT(differing, ElementsAre(2U));
    EXPECT_EQ(exec_a->argv[2], "token-A");

    // Apart from ExecStart, the unit is the same whatever the token and secret.
    ASSERT_EQ(a.properties.size(), b.properties.size());
    for (std::size_t i = 0; i < a.properties.size(); ++i) {
        EXPECT_EQ(a.properties[i].name, b.properties[i].name);
        if (a.properties[i].name != "ExecStart") {
            EXPECT_EQ(strings_in(a.properties[i].value), strings_in(b.properties[i].value)) << a.properties[i].name;
            EXPECT_EQ(a.properties[i].value.index(), b.properties[i].value.index()) << a.properties[i].name;
        }
    }
}

namespace {

const AddressList* addresses(const SessionPlan& p, const std::string& name)
{
    const auto* property = find_property(p.properties, name);
    return property == nullptr ? nullptr : std::get_if<AddressList>(&property->value);
}

} // namespace

TEST(AHostNetworkSession, IsDeniedEverySpecialUseRangeAndAllowedOnlyTheConfiguredAddresses)
{
    auto c = config();
    c.allowed_addresses = {parse_ip_prefix("127.0.0.2")};
    const auto p = plan(request(), c);
    const auto* deny = addresses(p, "IPAddressDeny");
    ASSERT_NE(deny, nullptr);
    EXPECT_EQ(deny->prefixes, denied_destinations());
    const auto* allow = addresses(p, "IPAddressAllow");
    ASSERT_NE(allow, nullptr);
    EXPECT_EQ(allow->prefixes, c.allowed_addresses);
}

TEST(AHostNetworkSessionWithoutAllowedAddresses, GetsNoAllowList)
{
    const auto p = plan();
    EXPECT_NE(addresses(p, "IPAddressDeny"), nullptr);
    EXPECT_EQ(addresses(p, "IPAddressAllow"), nullptr);
}

TEST(AnOfflineSession, IsDeniedEveryAddressAndAllowedNone)
{
    auto c = config();
    c.allowed_addresses = {parse_ip_prefix("127.0.0.2")};
    auto r = request();
    r.adapter = "codex"; // network: offline in the fixture config
    r.argv = {"codex"};
    r.environment.clear(); // the fixture request carries claude credentials
    const auto p = plan(r, c);
    const auto* deny = addresses(p, "IPAddressDeny");
    ASSERT_NE(deny, nullptr);
    EXPECT_EQ(deny->prefixes, (std::vector<IpPrefix>{parse_ip_prefix("0.0.0.0/0"), parse_ip_prefix("::/0")}));
    EXPECT_EQ(addresses(p, "IPAddressAllow"), nullptr);
    EXPECT_PROPERTY(p, bool, "PrivateNetwork", true);
}

TEST(AHostNetworkSession, SharesTheHostsNetworkNamespace)
{
    EXPECT_EQ(find_property(plan().properties, "PrivateNetwork"), nullptr);
}

TEST(AnAdaptersSessionDirectory, IsExpandedForTheOwnerAndMountedReadWrite)
{
    auto c = config();
    c.adapters.at("claude").session_dirs = {"/var/lib/nr/claude-sessions/{owner}"};
    const auto p = plan(request(), c);
    EXPECT_EQ(p.session_dirs, (std::vector<std::string>{"/var/lib/nr/claude-sessions/alice"}));
    const auto& argv = p.launch.bwrap_argv;
    bool mounted = false;
    for (std::size_t i = 0; i + 2 < argv.size(); ++i) {
        mounted = mounted || (argv[i] == "--bind" && argv[i + 1] == "/var/lib/nr/claude-sessions/alice" &&
                              argv[i + 2] == "/var/lib/nr/claude-sessions/alice");
    }
    EXPECT_TRUE(mounted);
}

TEST(ASessionDirectoryThatIsTheAppDataDirOrAHiddenPath, IsRefused)
{
    auto c = config();
    c.adapters.at("claude").session_dirs = {"/var/{owner}/../lib/nr"};
    NR_EXPECT_REFUSED(dots, ErrorKind::InvalidPath, plan(request(), c));
    c.adapters.at("claude").session_dirs = {"/home/{owner}"}; // /home is hidden in the fixture config
    NR_EXPECT_REFUSED(hidden, ErrorKind::InvalidPath, plan(request(), c));
}

TEST(AnAdapterWithItsOwnLimits, GetsThemOnItsUnitAndTmp)
{
    auto c = config();
    SessionLimits tight = c.limits;
    tight.runtime_max_sec = 2;
    tight.tmp_size_bytes = 4ULL << 20U;
    c.adapters.at("claude").limits = tight;
    const auto p = plan(request(), c);
    const auto* runtime = find_property(p.properties, "RuntimeMaxUSec");
    ASSERT_NE(runtime, nullptr);
    EXPECT_EQ(std::get<std::uint64_t>(runtime->value), 2000000U);
    const auto& argv = p.launch.bwrap_argv;
    EXPECT_NE(std::find(argv.begin(), argv.end(), std::to_string(4ULL << 20U)), argv.end());
}

// ---------------------------------------------------------- preflight canary

namespace {

SessionPlan canary(const Config& c = config())
{
    return plan_canary(c, kUser, host(), kToken, "/usr/bin/true");
}

// name -> rendered value of every property.
std::map<std::string, std::vector<std::string>> rendered(const SessionPlan& p)
{
    std::map<std::string, std::vector<std::string>> out;
    for (const auto& prop : p.properties) {
        out[prop.name] = strings_in(prop.value);
    }
    return out;
}

} // namespace

TEST(TheCanary, IsTheFirstAdaptersSessionUnitExceptForItsNameSliceAndShorterRuntime)
{
    auto session = rendered(plan());
    auto canary_unit = rendered(canary());
    EXPECT_EQ(canary().unit_name, "native-runtime-preflight.service");
    EXPECT_EQ(canary_unit.at("Slice"), std::vector<std::string>{"nativeruntime.slice"});
    EXPECT_EQ(canary_unit.at("RuntimeMaxUSec"), std::vector<std::string>{"30000000"});
    EXPECT_EQ(canary_unit.count("LogExtraFields"), 0U) << "never shown as a session by list or logs";
    for (const auto* differs : {"Slice", "RuntimeMaxUSec", "LogExtraFields", "Description"}) {
        session.erase(differs);
        canary_unit.erase(differs);
    }
    // Same launcher, same claim, same hardening, limits and network.
    EXPECT_EQ(canary_unit, session);
}

TEST(TheCanary, RunsTheCommandThroughTheClaimShimAndLauncherWithTheSessionsSeccompPolicyAndTheHostWideGrants)
{
    const auto p = canary();
    EXPECT_THAT(strings_in(find_property(p.properties, "ExecStart")->value),
                ElementsAre(kClaimShim, kClaimShim, "--claim", kToken));
    EXPECT_EQ(p.launch.seccomp.denied, plan().launch.seccomp.denied);
    EXPECT_TRUE(p.launch.seccomp.kill_foreign_abis);
    const auto& argv = p.launch.bwrap_argv;
    EXPECT_EQ(argv.back(), "/usr/bin/true");
    std::vector<std::string> ro;
    std::vector<std::string> rw;
    for (auto it = argv.begin(); it + 2 < argv.end() && *it != "--"; ++it) {
        if (*it == "--ro-bind") {
            ro.push_back(*(it + 1));
        } else if (*it == "--bind") {
            rw.push_back(*(it + 1));
        }
    }
    EXPECT_THAT(ro, ElementsAre("/etc/ssl", "/usr")) << "the host-wide grants, not the adapter's";
    EXPECT_TRUE(rw.empty()) << "the canary writes nowhere";
    EXPECT_THAT(argv, Contains("--share-net")); // the first adapter's network
}

TEST(TheCanary, CarriesNoCredentialsCreatesNothingAndNeverQueues)
{
    const auto p = canary();
    EXPECT_THAT(p.launch.environment, ElementsAre("PATH=/usr/bin:/bin"));
    EXPECT_TRUE(p.launch.dirs.relative.empty());
    EXPECT_FALSE(p.launch.admission.serial());
    EXPECT_TRUE(p.launch.checked_dirs.empty());
}

TEST(TheCanary, NeverRunsAsRootOrWithoutAnAdapter)
{
    EXPECT_THROW((void)plan_canary(config(), RunAsUser{"root", 0, 0}, host(), kToken, "/usr/bin/true"), Error);
    auto c = config();
    c.adapters.clear();
    EXPECT_THROW((void)canary(c), Error);
}

namespace {

constexpr const char* kGatewayToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
constexpr const char* kRealKey = "sk-REAL-provider-key-lives-only-in-the-gateway";

// claude switched to `network: gateway` with Anthropic as its provider.
Config gateway_config()
{
    auto c = config();
    auto& claude = c.adapters.at("claude");
    claude.network = NetworkMode::Gateway;
    claude.credential_env.clear();
    claude.egress.allow_hosts = {"api.anthropic.com", "statsig.anthropic.com"};
    claude.egress.providers = {
        {"api.anthropic.com", "anthropic-key", "x-api-key", "", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "/v1"}};
    c.gateway.port = 8181;
    return c;
}

SessionRequest gateway_request()
{
    auto r = request();
    r.environment = {{"TERM", "xterm"}};
    return r;
}

SessionPlan gateway_plan(const SessionRequest& r = gateway_request(), const std::string& gateway_token = kGatewayToken)
{
    return plan_session(gateway_config(), r, kUser, host(), kToken, gateway_token);
}

} // namespace

TEST(AGatewaySession, KeepsTheNetworkNamespaceTheLauncherMadeForIt)
{
    const auto p = gateway_plan();
    const auto& argv = p.launch.bwrap_argv;
    EXPECT_THAT(argv, Contains("--unshare-all"));
    EXPECT_THAT(argv, Contains("--share-net"));
    EXPECT_THAT(argv, Not(Contains("--unshare-net")));
    EXPECT_EQ(p.launch.gateway_port, 8181U);
}

TEST(AGatewaySession, GetsThePlaceholderTheBaseUrlAndTheProxyInItsEnvironment)
{
    const auto p = gateway_plan();
    const auto& env = p.launch.environment;
    EXPECT_THAT(env, Contains(std::string("ANTHROPIC_API_KEY=") + kGatewayToken));
    EXPECT_THAT(env, Contains("ANTHROPIC_BASE_URL=http://127.0.0.1:8181/api.anthropic.com/v1"));
    EXPECT_THAT(env, Contains("HTTPS_PROXY=http://127.0.0.1:8181"));
    EXPECT_THAT(env, Contains("https_proxy=http://127.0.0.1:8181"));
    EXPECT_THAT(env, Contains("NO_PROXY=127.0.0.1,localhost"));
    EXPECT_THAT(env, Contains("no_proxy=127.0.0.1,localhost"));
    EXPECT_THAT(env, Contains("TERM=xterm"));
    EXPECT_TRUE(std::is_sorted(env.begin(), env.end()));
}

TEST(AGatewaySession, IsAllowedOnlyTheLoopbackAddressOfItsOwnNamespace)
{
    const auto p = gateway_plan();
    const auto* deny = addresses(p, "IPAddressDeny");
    ASSERT_NE(deny, nullptr);
    EXPECT_EQ(deny->prefixes, (std::vector<IpPrefix>{parse_ip_prefix("0.0.0.0/0"), parse_ip_prefix("::/0")}));
    const auto* allow = addresses(p, "IPAddressAllow");
    ASSERT_NE(allow, nullptr);
    EXPECT_EQ(allow->prefixes, (std::vector<IpPrefix>{parse_ip_prefix("127.0.0.1/32")}));
}

TEST(AGatewayToken, NeverAppearsInAnyUnitProperty)
{
    const auto p = gateway_plan();
    ASSERT_THAT(p.launch.environment, Contains(std::string("ANTHROPIC_API_KEY=") + kGatewayToken));
    const auto strings = all_property_strings(p);
    ASSERT_THAT(strings, Contains(kToken)); // the walk does see property strings
    for (const auto& s : strings) {
        EXPECT_THAT(s, Not(HasSubstr(kGatewayToken)));
        EXPECT_THAT(s, Not(HasSubstr("ANTHROPIC_API_KEY")));
    }
}

TEST(AGatewaySessionsPlan, HoldsNoRealKeyAnywhere)
{
    // The config names only the credential; the real key is the gateway's.
    const auto p = gateway_plan();
    auto everything = all_property_strings(p);
    everything.insert(everything.end(), p.launch.environment.begin(), p.launch.environment.end());
    everything.insert(everything.end(), p.launch.bwrap_argv.begin(), p.launch.bwrap_argv.end());
    for (const auto& s : everything) {
        EXPECT_THAT(s, Not(HasSubstr(kRealKey)));
        EXPECT_THAT(s, Not(HasSubstr("anthropic-key")));
    }
}

TEST(AWorkerPassingTheProviderKey, IsRefusedForAGatewaySession)
{
    auto r = gateway_request();
    r.environment["ANTHROPIC_API_KEY"] = kRealKey;
    const auto e = nr::test::error_from([&] { (void)gateway_plan(r); });
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->kind(), ErrorKind::InvalidEnvironment);
}

TEST(AWorkerPassingAProxy, IsRefusedForAGatewaySessionEvenWhenProxiesAreAllowed)
{
    auto c = gateway_config();
    c.proxy_env = true;
    for (const auto* name : {"HTTPS_PROXY", "https_proxy", "NO_PROXY", "ALL_PROXY"}) {
        auto r = gateway_request();
        r.environment[name] = "http://evil.example:3128";
        const auto e = nr::test::error_from([&] { (void)plan_session(c, r, kUser, host(), kToken, kGatewayToken); });
        ASSERT_TRUE(e.has_value()) << name;
        EXPECT_EQ(e->kind(), ErrorKind::InvalidEnvironment) << name;
    }
}

TEST(AGatewaySessionWithoutAWellFormedToken, IsNotPlanned)
{
    for (const std::string& token : std::vector<std::string>{"", "short", std::string(64, 'G')}) {
        const auto e = nr::test::error_from([&] { (void)gateway_plan(gateway_request(), token); });
        ASSERT_TRUE(e.has_value()) << token;
        EXPECT_EQ(e->kind(), ErrorKind::LaunchFailed);
    }
}

TEST(ASessionWithoutTheGateway, HasNoGatewayPortAndNoProxy)
{
    const auto p = plan();
    EXPECT_EQ(p.launch.gateway_port, 0U);
    for (const auto& entry : p.launch.environment) {
        EXPECT_THAT(entry, Not(HasSubstr("PROXY")));
    }
}

TEST(TheCanaryOfAGatewayAdapter, RunsOfflineBecauseNoGatewayIsRegisteredForIt)
{
    const auto p = plan_canary(gateway_config(), kUser, host(), kToken, "/usr/bin/true");
    EXPECT_THAT(p.launch.bwrap_argv, Not(Contains("--share-net")));
    EXPECT_EQ(p.launch.gateway_port, 0U);
    const auto* deny = addresses(p, "IPAddressDeny");
    ASSERT_NE(deny, nullptr);
    EXPECT_EQ(addresses(p, "IPAddressAllow"), nullptr);
}

TEST(AGatewaySessionsUnit, StartsTheLauncherWithTheClaimTokenAndTheGatewayPort)
{
    const auto p = gateway_plan();
    const auto* exec = value_of<ExecCommand>(p, "ExecStart");
    ASSERT_NE(exec, nullptr);
    EXPECT_THAT(exec->argv, ElementsAre(kClaimShim, "--claim", kToken, "--gateway-port", "8181"));
}
