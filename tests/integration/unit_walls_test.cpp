// SPDX-License-Identifier: Apache-2.0
// The session unit's own walls around bwrap (core/plan/unit_filesystem.h,
// the user, device and network properties of core/plan/session_plan.cpp),
// each shown in a running session's unit, where its main process, the
// launcher's supervisor, lives outside bwrap's mounts: its mount namespace
// through /proc/PID/root, its user and network namespaces through
// /proc/PID, its device cgroup by a probe placed in that cgroup. Each with
// the same look at the host as the positive control. And the score
// `systemd-analyze security` gives such a unit.

#include "fixture.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace nr::itest;

namespace {

std::string without_trailing_space(std::string text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
        text.pop_back();
    }
    return text;
}

// "ok" or the errno name of creating (then removing) a file as root.
std::string root_creates(const std::string& path)
{
    std::ofstream out(path);
    if (!out) {
        return strerrorname_np(errno);
    }
    out.close();
    std::filesystem::remove(path);
    return "ok";
}

// The command name of `pid`, or "" for a process that ended while it was
// read (its comm file then fails with ESRCH, which the stream throws).
std::string command_of(const std::string& pid)
{
    try {
        return without_trailing_space(read_file("/proc/" + pid + "/comm"));
    } catch (const std::exception&) {
        return "";
    }
}

// " comm comm ... " of every descendant of `pid`. Launch steps fork short
// lived children (the gateway namespace's maker, bwrap's intermediate),
// so one may be listed and gone before it is read.
std::string descendant_commands(const std::string& pid)
{
    std::string all = " ";
    std::vector<std::string> queue{pid};
    while (!queue.empty()) {
        const auto next = queue.back();
        queue.pop_back();
        std::ifstream children("/proc/" + next + "/task/" + next + "/children");
        std::string child;
        while (children >> child) {
            all += command_of(child) + " ";
            queue.push_back(child);
        }
    }
    return all;
}

// A session that sleeps in its sandbox until the object goes away; main_pid()
// is its unit's main process once that is the supervisor, bwrap's parent.
class HeldSession {
public:
    // `command` is the name of the process that runs once the sandbox is up.
    HeldSession(const std::string& owner, const std::string& chat, const std::string& adapter,
                const std::vector<std::string>& argv, std::string command)
        : unit_(unit_of(owner, chat)), command_(std::move(command)),
          session_(as_user(kWorker, ctl_run(owner, chat, adapter, argv)))
    {
        eventually(30, [&] {
            const auto pid = unit_property(unit_, "MainPID");
            std::error_code ec;
            const auto exe = std::filesystem::read_symlink("/proc/" + pid + "/exe", ec);
            const auto running = descendant_commands(pid);
            last_seen_ = "MainPID=" + pid + " exe=" + exe.string() + " descendants=" + running;
            // The sandbox's command itself, not only bwrap: the probes look
            // at a session that is set up, and a stop then ends it at once.
            if (pid.empty() || pid == "0" || exe != kSupervisor ||
                running.find(" " + command_ + " ") == std::string::npos) {
                return false;
            }
            main_pid_ = pid;
            return true;
        });
    }
    HeldSession(const HeldSession&) = delete;
    HeldSession& operator=(const HeldSession&) = delete;
    HeldSession(HeldSession&&) = delete;
    HeldSession& operator=(HeldSession&&) = delete;
    ~HeldSession()
    {
        const auto stopping = std::chrono::steady_clock::now();
        const auto stop = run({"systemctl", "stop", unit_});
        const auto stopped = std::chrono::steady_clock::now();
        session_.wait();
        std::cout << "stop " << unit_ << ": status " << stop.status << " " << stop.err << ", "
                  << std::chrono::duration_cast<std::chrono::milliseconds>(stopped - stopping).count()
                  << " ms, run ended after "
                  << std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - stopping)
                         .count()
                  << " ms\n";
    }

    [[nodiscard]] const std::string& unit() const { return unit_; }
    [[nodiscard]] const std::string& main_pid() const { return main_pid_; }
    // What the wait saw last, for the failure message.
    [[nodiscard]] const std::string& last_seen() const { return last_seen_; }
    // The unit's file system as its processes see it.
    [[nodiscard]] std::string root() const { return "/proc/" + main_pid_ + "/root"; }

private:
    std::string unit_;
    std::string command_;
    Background session_;
    std::string main_pid_;
    std::string last_seen_;
};

std::string id_of(const char* option, const std::string& user)
{
    return without_trailing_space(run({"id", option, user}).out);
}

// Runs the probe as the worker, in the unit's cgroup (every hierarchy that
// has it) when `unit` is given, outside it otherwise. setpriv, not runuser:
// runuser's PAM session could move the process into a cgroup of its own.
std::map<std::string, std::string> probe_as_worker_in(const std::optional<std::string>& unit,
                                                      const std::vector<std::string>& probe_args)
{
    std::string script;
    if (unit) {
        const auto cgroup = unit_property(*unit, "ControlGroup");
        EXPECT_FALSE(cgroup.empty()) << "no control group for " << *unit;
        script = "n=0; for f in /sys/fs/cgroup" + cgroup + "/cgroup.procs /sys/fs/cgroup/*" + cgroup +
                 "/cgroup.procs; do [ -e \"$f\" ] && echo $$ > \"$f\" && n=$((n+1)); done; "
                 "[ $n -gt 0 ] || { echo 'joined no cgroup' >&2; exit 99; }; ";
    }
    script +=
        "exec setpriv --reuid=" + id_of("-u", kWorker) + " --regid=" + id_of("-g", kWorker) + " --clear-groups \"$@\"";
    std::vector<std::string> argv{"sh", "-c", script, "probe", kProbe};
    argv.insert(argv.end(), probe_args.begin(), probe_args.end());
    const auto outcome = run(argv);
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    return parse_lines(outcome.out);
}

} // namespace

TEST(ASessionUnitsFileSystem, IsReadOnlyOutsideDataDirEvenForRoot)
{
    const HeldSession session("alice", "wallsfs", "shell", {"sh", "-c", "sleep 60"}, "sleep");
    ASSERT_FALSE(session.main_pid().empty()) << "the session's supervisor never ran: " << session.last_seen();

    EXPECT_EQ(root_creates("/etc/nr-wall-probe"), "ok") << "positive control: root writes /etc on the host";
    EXPECT_EQ(root_creates(session.root() + "/etc/nr-wall-probe"), "EROFS");
    EXPECT_EQ(root_creates(session.root() + "/usr/nr-wall-probe"), "EROFS");
    EXPECT_EQ(root_creates(session.root() + "/var/nr-wall-probe"), "EROFS");
    // ReadWritePaths=: the launcher creates the owner's tree there.
    EXPECT_EQ(root_creates(session.root() + kDataDir + "/nr-wall-probe"), "ok");
}

TEST(ASessionUnitsFileSystem, HasNoHomesAndATmpOfItsOwn)
{
    const std::vector<std::string> markers{"/home/nr-wall-marker", "/root/nr-wall-marker", "/tmp/nr-wall-marker",
                                           "/var/tmp/nr-wall-marker"};
    for (const auto& marker : markers) {
        std::filesystem::create_directories(std::filesystem::path(marker).parent_path());
        write_file(marker, "on the host\n");
    }
    {
        const HeldSession session("alice", "wallshomes", "shell", {"sh", "-c", "sleep 60"}, "sleep");
        ASSERT_FALSE(session.main_pid().empty()) << "the session's supervisor never ran: " << session.last_seen();
        for (const auto& marker : markers) {
            EXPECT_TRUE(exists(marker)) << "positive control: " << marker << " is there on the host";
            EXPECT_FALSE(exists(session.root() + marker)) << marker;
        }
        EXPECT_TRUE(exists(session.root() + "/home")) << "ProtectHome=yes leaves an empty, inaccessible /home";
        EXPECT_TRUE(exists(session.root() + "/usr/bin/sh")) << "positive control: the unit's root is readable";
    }
    for (const auto& marker : markers) {
        std::filesystem::remove(marker);
    }
}

TEST(ASessionUnitsUserNamespace, MapsOnlyRootAndTheSessionUser)
{
    EXPECT_EQ(std::regex_replace(without_trailing_space(read_file("/proc/self/uid_map")), std::regex(" +"), " "),
              " 0 0 4294967295")
        << "positive control: the host maps every uid";
    const HeldSession session("alice", "wallsusers", "shell", {"sh", "-c", "sleep 60"}, "sleep");
    ASSERT_FALSE(session.main_pid().empty()) << "the session's supervisor never ran: " << session.last_seen();
    const auto uid = id_of("-u", kWorker);
    const auto map = std::regex_replace(read_file("/proc/" + session.main_pid() + "/uid_map"), std::regex(" +"), " ");
    EXPECT_EQ(map, " 0 0 1\n " + uid + " " + uid + " 1\n");
}

TEST(ASessionUnitsDevices, AreOnlyThePseudoDevices)
{
    const std::string dir = "/var/lib/nr-wall-devices";
    std::filesystem::create_directories(dir);
    const auto node = [&](const std::string& name, unsigned major_number, unsigned minor_number) {
        const auto path = dir + "/" + name;
        std::filesystem::remove(path);
        EXPECT_EQ(mknod(path.c_str(), S_IFCHR | 0666, makedev(major_number, minor_number)), 0) << strerror(errno);
        EXPECT_EQ(chmod(path.c_str(), 0666), 0);
        return path;
    };
    const auto null_device = node("null", 1, 3);
    const auto tun = node("tun", 10, 200); // opening it needs no privilege, configuring one does
    EXPECT_EQ(probe_as_worker_in(std::nullopt, {"read", tun})["read"], "ok")
        << "positive control: the worker opens it outside";

    const HeldSession session("alice", "wallsdevices", "shell", {"sh", "-c", "sleep 60"}, "sleep");
    ASSERT_FALSE(session.main_pid().empty()) << "the session's supervisor never ran: " << session.last_seen();
    EXPECT_EQ(probe_as_worker_in(session.unit(), {"read", null_device})["read"], "ok")
        << "positive control: a pseudo device opens in the unit's cgroup";
    EXPECT_EQ(probe_as_worker_in(session.unit(), {"read", tun})["read"], "EPERM");
    std::filesystem::remove_all(dir);
}

TEST(AnOfflineSessionsUnit, HasANetworkNamespaceOfItsOwnWhereAHostSessionsSharesTheHosts)
{
    const auto host_namespace = std::filesystem::read_symlink("/proc/self/ns/net");
    {
        const HeldSession host("alice", "wallshostnet", "shell", {"sh", "-c", "sleep 60"}, "sleep");
        ASSERT_FALSE(host.main_pid().empty()) << "the session's supervisor never ran: " << host.last_seen();
        EXPECT_EQ(std::filesystem::read_symlink("/proc/" + host.main_pid() + "/ns/net"), host_namespace)
            << "positive control: a network: host session's unit shares it";
    }
    const HeldSession offline("alice", "wallsoffline", "probe-offline", {"nr-probe", "sleep", "60"}, "nr-probe");
    ASSERT_FALSE(offline.main_pid().empty()) << "the session's supervisor never ran: " << offline.last_seen();
    EXPECT_NE(std::filesystem::read_symlink("/proc/" + offline.main_pid() + "/ns/net"), host_namespace);
    const auto interfaces = read_file("/proc/" + offline.main_pid() + "/net/dev");
    EXPECT_NE(interfaces.find(" lo:"), std::string::npos) << interfaces;
    EXPECT_EQ(std::count(interfaces.begin(), interfaces.end(), '\n'), 3) << "two header lines and lo: " << interfaces;
}

namespace {

// The overall exposure `systemd-analyze security` prints for `unit`, with
// its whole table on the test's output for the record.
std::optional<double> exposure_of(const std::string& unit)
{
    const auto outcome = run({"systemd-analyze", "security", "--no-pager", unit});
    std::cout << "systemd-analyze security " << unit << ":\n" << outcome.out << outcome.err;
    std::smatch match;
    const std::regex overall("Overall exposure level for " + std::regex_replace(unit, std::regex("\\."), "\\.") +
                             ": ([0-9]+\\.[0-9])");
    if (!std::regex_search(outcome.out, match, overall)) {
        return std::nullopt;
    }
    return std::stod(match[1]);
}

} // namespace

TEST(ASessionUnit, ScoresBelowFourInSystemdAnalyzeSecurity)
{
    const std::string control = "nr-analyze-control.service";
    ASSERT_EQ(
        run({"systemd-run", "--unit", control, "--property", "User=" + std::string(kWorker), "sleep", "60"}).status, 0);
    const auto plain = exposure_of(control);
    run({"systemctl", "stop", control});
    ASSERT_TRUE(plain.has_value()) << "positive control: the score of a plain unit is read";
    EXPECT_GT(*plain, 8.0) << "positive control: a unit without hardening scores high";

    const HeldSession session("alice", "wallsscore", "shell", {"sh", "-c", "sleep 60"}, "sleep");
    ASSERT_FALSE(session.main_pid().empty()) << "the session's supervisor never ran: " << session.last_seen();
    const auto score = exposure_of(session.unit());
    ASSERT_TRUE(score.has_value());
    std::cout << "session unit exposure: " << *score << '\n';
    EXPECT_LT(*score, 4.0);
}
