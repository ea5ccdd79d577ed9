// SPDX-License-Identifier: Apache-2.0
#include "core/launch/sandbox_args.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace nr::core;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::Not;

namespace {

using Argv = std::vector<std::string>;

SandboxLayout layout()
{
    SandboxLayout l;
    l.read_only = {"/usr", "/etc/ssl"};
    l.read_write = {"/var/lib/nr/native-runtime/alice/home", "/var/lib/nr/native-runtime/alice/chats/c1/workspace"};
    l.symlinks = {{"/bin", "usr/bin"}, {"/lib", "usr/lib"}};
    l.working_dir = "/var/lib/nr/native-runtime/alice/chats/c1/workspace";
    l.tmp_size_bytes = 256ULL << 20U;
    l.network = NetworkMode::Host;
    l.nested_userns = false;
    return l;
}

const Argv kAgent{"/usr/bin/claude", "--print", "hi"};

Argv argv_for(const SandboxLayout& l)
{
    return bwrap_argv("/usr/bin/bwrap", l, kAgent);
}

// The options only: everything before the "--" that separates the agent argv.
Argv options_of(const Argv& argv)
{
    const auto sep = std::find(argv.begin(), argv.end(), "--");
    return Argv(argv.begin(), sep);
}

std::optional<std::size_t> find_slice(const Argv& argv, const Argv& slice)
{
    const auto it = std::search(argv.begin(), argv.end(), slice.begin(), slice.end());
    if (it == argv.end()) {
        return std::nullopt;
    }
    return static_cast<std::size_t>(it - argv.begin());
}

bool has_slice(const Argv& argv, const Argv& slice)
{
    return find_slice(argv, slice).has_value();
}

// Every bwrap option that makes a host path visible, as (option, source, dest).
struct HostMount {
    std::string option;
    std::string source;
    std::string dest;
    bool operator==(const HostMount&) const = default;
};

std::vector<HostMount> host_mounts(const Argv& options)
{
    static const std::set<std::string> kTwoArgMounts{"--bind",     "--bind-try",     "--ro-bind", "--ro-bind-try",
                                                     "--dev-bind", "--dev-bind-try", "--bind-fd", "--ro-bind-fd"};
    std::vector<HostMount> out;
    for (std::size_t i = 0; i < options.size(); ++i) {
        if (kTwoArgMounts.contains(options[i])) {
            out.push_back({options[i], options.at(i + 1), options.at(i + 2)});
            i += 2;
        }
    }
    return out;
}

std::size_t position_of_mount(const Argv& argv, const std::string& path)
{
    for (std::size_t i = 0; i + 2 < argv.size(); ++i) {
        if ((argv[i] == "--bind" || argv[i] == "--ro-bind") && argv[i + 1] == path) {
            return i;
        }
    }
    ADD_FAILURE() << "no mount of " << path;
    return argv.size();
}

} // namespace

TEST(TheBwrapArgv, StartsWithTheBwrapPathAndUnsharesEveryNamespaceIncludingUser)
{
    const auto argv = argv_for(layout());
    ASSERT_GE(argv.size(), 3U);
    EXPECT_EQ(argv[0], "/usr/bin/bwrap");
    EXPECT_EQ(argv[1], "--unshare-all");
    EXPECT_EQ(argv[2], "--unshare-user");
}

TEST(TheBwrapArgv, DropsCapabilitiesAndDiesWithItsParentInANewSession)
{
    const auto options = options_of(argv_for(layout()));
    EXPECT_TRUE(has_slice(options, {"--cap-drop", "ALL"}));
    EXPECT_THAT(options, Contains("--die-with-parent"));
    EXPECT_THAT(options, Contains("--new-session"));
}

TEST(HostNetwork, IsSharedOnlyWhenTheAdapterAsksForIt)
{
    auto l = layout();
    l.network = NetworkMode::Host;
    EXPECT_THAT(options_of(argv_for(l)), Contains("--share-net"));
    l.network = NetworkMode::Offline;
    EXPECT_THAT(options_of(argv_for(l)), Not(Contains("--share-net")));
    EXPECT_THAT(options_of(argv_for(l)), Contains("--unshare-all"));
}

TEST(NestedUserNamespaces, AreDisabledUnlessTheAdapterAllowsThem)
{
    auto l = layout();
    l.nested_userns = false;
    EXPECT_TRUE(has_slice(options_of(argv_for(l)), {"--disable-userns", "--assert-userns-disabled"}));
    l.nested_userns = true;
    const auto nested = options_of(argv_for(l));
    EXPECT_THAT(nested, Not(Contains("--disable-userns")));
    EXPECT_THAT(nested, Not(Contains("--assert-userns-disabled")));
    EXPECT_THAT(nested, Contains("--unshare-user"));
}

TEST(TheMounts, AreExactlyTheListedPathsReadOnlyOrReadWriteAtTheSamePlace)
{
    EXPECT_THAT(host_mounts(options_of(argv_for(layout()))),
                ElementsAre(HostMount{"--ro-bind", "/etc/ssl", "/etc/ssl"}, HostMount{"--ro-bind", "/usr", "/usr"},
                            HostMount{"--bind", "/var/lib/nr/native-runtime/alice/chats/c1/workspace",
                                      "/var/lib/nr/native-runtime/alice/chats/c1/workspace"},
                            HostMount{"--bind", "/var/lib/nr/native-runtime/alice/home",
                                      "/var/lib/nr/native-runtime/alice/home"}));
}

TEST(NothingOfTheHost, IsMountedThatWasNotListed)
{
    const auto options = options_of(argv_for(layout()));
    std::set<std::string> sources;
    for (const auto& m : host_mounts(options)) {
        sources.insert(m.source);
    }
    EXPECT_EQ(sources, (std::set<std::string>{"/usr", "/etc/ssl", "/var/lib/nr/native-runtime/alice/home",
                                              "/var/lib/nr/native-runtime/alice/chats/c1/workspace"}));
    for (const char* never : {"/", "/run", "/home", "/var", "/etc", "/tmp", "/proc", "/dev", "/sys"}) {
        EXPECT_FALSE(sources.contains(never)) << never;
    }
    EXPECT_THAT(options, Not(Contains("--dev-bind")));
    EXPECT_THAT(options, Not(Contains("--bind-try")));
    EXPECT_THAT(options, Not(Contains("--ro-bind-try")));
    EXPECT_THAT(options, Not(Contains("--overlay-src")));
}

TEST(AnEmptyLayout, MountsNoHostPathAtAll)
{
    SandboxLayout l;
    l.working_dir = "/";
    l.tmp_size_bytes = 1;
    EXPECT_THAT(host_mounts(options_of(bwrap_argv("/usr/bin/bwrap", l, kAgent))), ::testing::IsEmpty());
}

TEST(ParentMounts, ComeBeforeTheirChildrenWhateverTheListOrder)
{
    SandboxLayout l = layout();
    l.read_only = {"/srv/ws/ro", "/usr/lib", "/srv", "/usr"};
    l.read_write = {"/srv/ws/ro/rw", "/srv/ws"};
    const auto argv = argv_for(l);
    EXPECT_LT(position_of_mount(argv, "/usr"), position_of_mount(argv, "/usr/lib"));
    EXPECT_LT(position_of_mount(argv, "/srv"), position_of_mount(argv, "/srv/ws"));
    EXPECT_LT(position_of_mount(argv, "/srv/ws"), position_of_mount(argv, "/srv/ws/ro"));
    EXPECT_LT(position_of_mount(argv, "/srv/ws/ro"), position_of_mount(argv, "/srv/ws/ro/rw"));
}

TEST(ParentMounts, ComeBeforeChildrenEvenWhenASiblingSortsBetweenThem)
{
    SandboxLayout l = layout();
    // '-' and '.' sort before '/', so /usr-local and /usr.d fall between /usr and /usr/lib.
    l.read_only = {"/usr/lib", "/usr-local", "/usr.d", "/usr"};
    l.read_write = {};
    const auto argv = argv_for(l);
    EXPECT_LT(position_of_mount(argv, "/usr"), position_of_mount(argv, "/usr/lib"));
}

TEST(ReadWritePaths, AreBoundWritableAndReadOnlyPathsAreNot)
{
    const auto options = options_of(argv_for(layout()));
    EXPECT_TRUE(has_slice(
        options, {"--bind", "/var/lib/nr/native-runtime/alice/home", "/var/lib/nr/native-runtime/alice/home"}));
    EXPECT_TRUE(has_slice(options, {"--ro-bind", "/usr", "/usr"}));
    EXPECT_FALSE(has_slice(options, {"--bind", "/usr", "/usr"}));
    EXPECT_FALSE(has_slice(
        options, {"--ro-bind", "/var/lib/nr/native-runtime/alice/home", "/var/lib/nr/native-runtime/alice/home"}));
}

TEST(RootSymlinks, AreCreatedAsTargetThenPathAfterTheMounts)
{
    const auto argv = argv_for(layout());
    const auto bin = find_slice(argv, {"--symlink", "usr/bin", "/bin"});
    const auto lib = find_slice(argv, {"--symlink", "usr/lib", "/lib"});
    ASSERT_TRUE(bin.has_value());
    ASSERT_TRUE(lib.has_value());
    EXPECT_GT(*bin, position_of_mount(argv, "/var/lib/nr/native-runtime/alice/home"));
}

TEST(TheSandbox, GetsItsOwnProcDevAndSizedTmp)
{
    const auto options = options_of(argv_for(layout()));
    EXPECT_TRUE(has_slice(options, {"--proc", "/proc", "--dev", "/dev"}));
    EXPECT_TRUE(has_slice(options, {"--size", "268435456", "--perms", "1777", "--tmpfs", "/tmp"}));
}

TEST(TheSandboxRootAndDev, AreRemountedReadOnlyAfterTheLastMount)
{
    const auto options = options_of(argv_for(layout()));
    const auto root = find_slice(options, {"--remount-ro", "/"});
    const auto dev = find_slice(options, {"--remount-ro", "/dev"});
    ASSERT_TRUE(root.has_value());
    ASSERT_TRUE(dev.has_value());
    // Every option that mounts something or creates a mount point on the
    // root (or /dev) comes before the remounts.
    const std::set<std::string> mounting{"--bind", "--ro-bind", "--bind-fd", "--symlink",
                                         "--proc", "--dev",     "--tmpfs",   "--dir"};
    for (std::size_t i = 0; i < options.size(); ++i) {
        if (mounting.contains(options[i])) {
            EXPECT_LT(i, *dev) << options[i] << " " << options[i + 1];
            EXPECT_LT(i, *root) << options[i] << " " << options[i + 1];
        }
    }
}

TEST(DevShm, IsItsOwnSizedTmpfsSoDevCanBeReadOnly)
{
    EXPECT_TRUE(
        has_slice(options_of(argv_for(layout())), {"--size", "268435456", "--perms", "1777", "--tmpfs", "/dev/shm"}));
}

TEST(TheTmpSize, ComesFromTheLayout)
{
    auto l = layout();
    l.tmp_size_bytes = 1ULL << 30U;
    EXPECT_TRUE(has_slice(options_of(argv_for(l)), {"--size", "1073741824", "--perms", "1777", "--tmpfs", "/tmp"}));
}

TEST(TheSandbox, StartsInTheWorkingDirectory)
{
    EXPECT_TRUE(
        has_slice(options_of(argv_for(layout())), {"--chdir", "/var/lib/nr/native-runtime/alice/chats/c1/workspace"}));
}

TEST(TheAgentArgv, FollowsTheSeparatorVerbatimAtTheEnd)
{
    const Argv hostile{"/usr/bin/claude", "--bind", "/", "/", "--"};
    const auto argv = bwrap_argv("/usr/bin/bwrap", layout(), hostile);
    const auto sep = std::find(argv.begin(), argv.end(), "--");
    ASSERT_NE(sep, argv.end());
    EXPECT_THAT(Argv(sep + 1, argv.end()), ElementsAreArray(hostile));
    // Agent arguments are not bwrap options.
    EXPECT_FALSE(has_slice(options_of(argv), {"--bind", "/", "/"}));
}

TEST(TheOptions, AppearInTheDocumentedOrder)
{
    EXPECT_THAT(argv_for(layout()),
                ElementsAre("/usr/bin/bwrap", "--unshare-all", "--unshare-user", "--share-net", "--disable-userns",
                            "--assert-userns-disabled", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                            "--ro-bind", "/etc/ssl", "/etc/ssl", "--ro-bind", "/usr", "/usr", "--bind",
                            "/var/lib/nr/native-runtime/alice/chats/c1/workspace",
                            "/var/lib/nr/native-runtime/alice/chats/c1/workspace", "--bind",
                            "/var/lib/nr/native-runtime/alice/home", "/var/lib/nr/native-runtime/alice/home",
                            "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib", "--proc", "/proc", "--dev",
                            "/dev", "--size", "268435456", "--perms", "1777", "--tmpfs", "/tmp", "--size", "268435456",
                            "--perms", "1777", "--tmpfs", "/dev/shm", "--remount-ro", "/dev", "--remount-ro", "/",
                            "--chdir", "/var/lib/nr/native-runtime/alice/chats/c1/workspace", "--", "/usr/bin/claude",
                            "--print", "hi"));
}

namespace {

std::vector<std::string> split_nul(const std::string& data)
{
    std::vector<std::string> items;
    std::size_t start = 0;
    while (start < data.size()) {
        const auto end = data.find('\0', start);
        items.push_back(data.substr(start, end - start));
        start = end + 1;
    }
    return items;
}

const std::vector<std::string> kPlanned{"/usr/bin/bwrap",  "--unshare-all", "--ro-bind", "/usr", "/usr", "--",
                                        "/usr/bin/claude", "--help"};

} // namespace

TEST(TheBwrapCommandLine, CarriesOnlyTheArgsDescriptorAndTheAgentArgv)
{
    EXPECT_EQ(bwrap_exec_argv(kPlanned, 7),
              (std::vector<std::string>{"/usr/bin/bwrap", "--args", "7", "--", "/usr/bin/claude", "--help"}));
}

TEST(TheBwrapArgsData, HoldsTheOptionsTheEnvironmentAsSetenvAndTheSeccompDescriptor)
{
    const auto items = split_nul(bwrap_args_data(kPlanned, {"HOME=/h", "TOKEN=a=b"}, 3));
    EXPECT_EQ(items, (std::vector<std::string>{"--unshare-all", "--ro-bind", "/usr", "/usr", "--setenv", "HOME", "/h",
                                               "--setenv", "TOKEN", "a=b", "--seccomp", "3"}));
}

TEST(APlannedCommandWithoutSeparator, IsRefusedRatherThanGuessed)
{
    const std::vector<std::string> planned{"/usr/bin/bwrap", "--unshare-all", "/usr/bin/claude"};
    NR_EXPECT_REFUSED(e1, ErrorKind::LaunchFailed, bwrap_exec_argv(planned, 7));
    NR_EXPECT_REFUSED(e2, ErrorKind::LaunchFailed, bwrap_args_data(planned, {}, 3));
}

TEST(AnEnvironmentEntryWithoutEquals, IsRefused)
{
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, bwrap_args_data(kPlanned, {"NOVALUE"}, 3));
}

namespace {

MountDescriptors writable(std::map<std::string, int> fds)
{
    MountDescriptors d;
    d.read_write = std::move(fds);
    return d;
}

MountDescriptors read_only(std::map<std::string, int> fds)
{
    MountDescriptors d;
    d.read_only = std::move(fds);
    return d;
}

} // namespace

TEST(BindFromDescriptors, ReplacesTheCheckedDirectorysBindByItsDescriptor)
{
    const auto planned = argv_for(layout());
    const std::string ws = "/var/lib/nr/native-runtime/alice/chats/c1/workspace";
    const auto argv = bind_from_descriptors(planned, writable({{ws, 9}}));
    EXPECT_TRUE(has_slice(options_of(argv), {"--bind-fd", "9", ws}));
    EXPECT_FALSE(has_slice(options_of(argv), {"--bind", ws, ws}));
    // Everything else, including the other read-write bind and the agent
    // argv after "--", is unchanged.
    EXPECT_TRUE(has_slice(options_of(argv), {"--bind", "/var/lib/nr/native-runtime/alice/home",
                                             "/var/lib/nr/native-runtime/alice/home"}));
    EXPECT_EQ(argv.size(), planned.size());
    EXPECT_TRUE(std::equal(kAgent.rbegin(), kAgent.rend(), argv.rbegin()));
}

TEST(BindFromDescriptors, RefusesADirectoryThePlanDoesNotBindReadWrite)
{
    const auto planned = argv_for(layout());
    NR_EXPECT_REFUSED(unplanned, ErrorKind::LaunchFailed,
                      bind_from_descriptors(planned, writable({{"/srv/elsewhere", 9}})));
    NR_EXPECT_REFUSED(read_only, ErrorKind::LaunchFailed, bind_from_descriptors(planned, writable({{"/usr", 9}})));
}

TEST(BindFromDescriptors, NeverTouchesTheAgentsArgv)
{
    const Argv agent{"/usr/bin/claude", "--bind", "/srv/x", "/srv/x"};
    const auto planned = bwrap_argv("/usr/bin/bwrap", layout(), agent);
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, bind_from_descriptors(planned, writable({{"/srv/x", 9}})));
}

namespace {

const std::string kAliceHome = nr::test::kHome;

// The layout with the home's .claude/settings.json protected: read-only,
// and its parent bound onto itself.
SandboxLayout protected_layout()
{
    auto l = layout();
    l.read_only.push_back(kAliceHome + "/.claude/settings.json");
    l.read_write.push_back(kAliceHome + "/.claude");
    return l;
}

MountDescriptors protected_descriptors()
{
    MountDescriptors d;
    d.read_write = {{kAliceHome + "/.claude", 11}};
    d.read_only = {{kAliceHome + "/.claude/settings.json", 12}};
    d.descriptors_only_beneath = kAliceHome;
    return d;
}

} // namespace

TEST(BindFromDescriptors, MountsAProtectedPathReadOnlyFromItsDescriptor)
{
    const auto planned = argv_for(protected_layout());
    const auto argv = bind_from_descriptors(planned, protected_descriptors());
    const auto options = options_of(argv);
    EXPECT_TRUE(has_slice(options, {"--ro-bind-fd", "12", kAliceHome + "/.claude/settings.json"}));
    EXPECT_TRUE(has_slice(options, {"--bind-fd", "11", kAliceHome + "/.claude"}));
    EXPECT_FALSE(has_slice(options, {"--ro-bind", kAliceHome + "/.claude/settings.json"}));
    // The home itself stays a bind by name, before both.
    const auto home = find_slice(options, {"--bind", kAliceHome, kAliceHome});
    ASSERT_TRUE(home.has_value());
    EXPECT_LT(*home, *find_slice(options, {"--bind-fd", "11"}));
    EXPECT_LT(*find_slice(options, {"--bind-fd", "11"}), *find_slice(options, {"--ro-bind-fd", "12"}));
    // The host grants stay read-only binds by name.
    EXPECT_TRUE(has_slice(options, {"--ro-bind", "/usr", "/usr"}));
    EXPECT_EQ(argv.size(), planned.size());
}

TEST(BindFromDescriptors, RefusesAReadOnlyDescriptorForAWritableMountAndTheOtherWayRound)
{
    const auto planned = argv_for(protected_layout());
    auto swapped = protected_descriptors();
    std::swap(swapped.read_only, swapped.read_write);
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, bind_from_descriptors(planned, swapped));
}

TEST(BindFromDescriptors, RefusesAProtectedDescriptorThePlanDoesNotMount)
{
    const auto planned = argv_for(layout());
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed,
                      bind_from_descriptors(planned, read_only({{kAliceHome + "/.bashrc", 12}})));
}

TEST(BindFromDescriptors, RefusesAMountBeneathTheHomeLeftToBeMadeByName)
{
    const auto planned = argv_for(protected_layout());
    auto missing_file = protected_descriptors();
    missing_file.read_only.clear();
    NR_EXPECT_REFUSED(file, ErrorKind::LaunchFailed, bind_from_descriptors(planned, missing_file));
    EXPECT_THAT(file->what(), ::testing::HasSubstr(kAliceHome + "/.claude/settings.json would be mounted by name"));
    auto missing_parent = protected_descriptors();
    missing_parent.read_write.clear();
    NR_EXPECT_REFUSED(parent, ErrorKind::LaunchFailed, bind_from_descriptors(planned, missing_parent));
}

TEST(BindFromDescriptors, LeavesMountsBeneathTheHomeAloneWhenNothingIsProtected)
{
    const auto planned = argv_for(protected_layout());
    EXPECT_EQ(bind_from_descriptors(planned, {}), Argv(planned.begin(), planned.end()));
}
