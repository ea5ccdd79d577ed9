// SPDX-License-Identifier: Apache-2.0
// What the gateway's unit adds to the gateway's own checks (issue 24, item
// 7), shown on the running packaged unit: it cannot reach the link-local
// and metadata addresses even when a session's policy and its name's
// address allow them, and a crash of the process that holds every
// provider key leaves no core and costs the running sessions seconds.

#include "gateway_fixture.h"
#include "listeners.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <sys/stat.h>

using namespace nr::itest;

namespace {

constexpr const char* kMetadata = "169.254.169.254";
constexpr const char* kMetadataTarget = "metadata.nr-test:8443";
constexpr std::uint16_t kMetadataPort = 8443;
constexpr const char* kCores = "/run/nr-gateway-test/cores";
constexpr const char* kCoresDropIn = "/run/systemd/system/native-runtime-gateway.service.d/60-test-cores.conf";
constexpr const char* kDumpableUnit = "nr-dumpable-control.service";

class TheGatewaysUnit : public GatewayFixture {};

// The soft and hard `Max core file size` of /proc/PID/limits.
std::string core_limits(const std::string& pid)
{
    std::istringstream lines(read_file("/proc/" + pid + "/limits"));
    std::string line;
    while (std::getline(lines, line)) {
        if (line.starts_with("Max core file size")) {
            std::istringstream fields(line.substr(std::string("Max core file size").size()));
            std::string soft;
            std::string hard;
            fields >> soft >> hard;
            return soft + " " + hard;
        }
    }
    return "";
}

// Owner of /proc/PID/status: root for a process that made itself
// undumpable, whatever user it runs as (the directory itself keeps the
// process's uid either way).
uid_t proc_owner(const std::string& pid)
{
    struct stat st {};
    return stat(("/proc/" + pid + "/status").c_str(), &st) == 0 ? st.st_uid : static_cast<uid_t>(-1);
}

std::vector<std::string> cores_written()
{
    std::vector<std::string> out;
    for (const auto& entry : std::filesystem::directory_iterator(kCores)) {
        out.push_back(entry.path().filename().string());
    }
    return out;
}

std::string systemd_says(const std::string& unit)
{
    return run({"journalctl", "-b", "-q", "-o", "cat", "--no-pager", "_PID=1", "UNIT=" + unit}).out;
}

} // namespace

TEST_F(TheGatewaysUnit, CannotReachTheMetadataAddressEvenWhenASessionsPolicyAndItsNameAllowIt)
{
    // Idempotent: "File exists" when the network tests added it first.
    (void)run({"ip", "addr", "add", std::string(kMetadata) + "/32", "dev", "lo"});
    const Listener metadata(kMetadata, kMetadataPort);
    EXPECT_EQ(probe_outside(kWorker, {"connect", kMetadata, metadata.port()})["connect"], "ok")
        << "control: the address answers outside the gateway's unit";
    const auto endpoint = upstream();
    const auto allowed = run(client_session(
        "gwunittun", {"connect-via-proxy", std::string(kTunnelName) + ":" + std::to_string(kUpstreamPort)}));
    EXPECT_EQ(parse_lines(allowed.out)["status"], "200") << "control: tunnels work: " << allowed.out << allowed.err;
    // gateway-metadata's egress allows the name and its address, so only
    // the unit's IPAddressDeny= stands between the gateway and it: the
    // connection never completes, and the gateway's answer says so after
    // its connect timeout.
    const auto denied = run(as_user(kWorker, ctl_run("alice", "gwunitmd", "gateway-metadata",
                                                     {kGatewayClient, "connect-via-proxy", kMetadataTarget})));
    const auto lines = parse_lines(denied.out);
    EXPECT_EQ(lines.count("status") != 0 ? lines.at("status") : "", "502") << denied.out << denied.err;
    EXPECT_EQ(lines.count("refused") != 0 ? lines.at("refused") : "", "upstream") << denied.out;
    const auto reason = lines.find("reason");
    EXPECT_TRUE(reason != lines.end() && contains(reason->second, "cannot reach metadata.nr-test")) << denied.out;
}

TEST_F(TheGatewaysUnit, LeavesNoCoreOfAnAbortedGatewayAndItsSessionsAnsweredAgainWithinSeconds)
{
    std::filesystem::create_directories(kCores);
    std::filesystem::permissions(kCores, std::filesystem::perms::all | std::filesystem::perms::sticky_bit);
    const std::string confined = std::string("ReadWritePaths=") + kCores;
    const std::string in_cores = std::string("WorkingDirectory=") + kCores;
    // Control: a process of a dynamic user like the gateway's, in the same
    // directory, leaves a core there when it aborts dumpable and with a
    // core limit, and systemd says it dumped.
    (void)run({"systemd-run", "--quiet", "--wait", "--unit=nr-core-control", "-p", "DynamicUser=yes", "-p",
               "LimitCORE=infinity", "-p", "ProtectSystem=strict", "-p", confined, "-p", in_cores, "python3", "-c",
               "import os; os.abort()"});
    EXPECT_EQ(cores_written().size(), 1U) << "control: no core of a dumpable process was written";
    EXPECT_TRUE(eventually(10, [] { return contains(systemd_says("nr-core-control.service"), "code=dumped"); }))
        << systemd_says("nr-core-control.service");
    (void)run({"systemctl", "reset-failed", "nr-core-control.service"});
    std::filesystem::remove_all(kCores);
    std::filesystem::create_directories(kCores);
    std::filesystem::permissions(kCores, std::filesystem::perms::all | std::filesystem::perms::sticky_bit);

    write_file(kCoresDropIn, "[Service]\n" + confined + "\n" + in_cores + "\n");
    ASSERT_EQ(run({"systemctl", "daemon-reload"}).status, 0);
    ASSERT_EQ(run({"systemctl", "restart", kGatewayUnit}).status, 0)
        << run({"systemctl", "status", "--no-pager", "-n", "30", kGatewayUnit}).out;
    const auto endpoint = upstream();
    const auto unit = unit_of("alice", "gwunitabort");
    Background session(client_session("gwunitabort", {"repeat", "/responses", "200"}));
    std::string before;
    ASSERT_TRUE(eventually(60,
                           [&] {
                               before = gateway_main_pid();
                               return before != "0" &&
                                      contains(gateway_records(unit, before), "NATIVE_RUNTIME_GATEWAY_STATUS=200");
                           }))
        << "control: the session's requests reach the upstream: "
        << run({"systemctl", "status", "--no-pager", "-n", "30", kGatewayUnit}).out;

    // The mechanisms, each on the running process: a hard core limit of 0,
    // and undumpable (its /proc files root's while it runs as a dynamic
    // user, unlike a plain dynamic-user process's).
    ASSERT_EQ(run({"systemd-run", "--quiet", "--unit", kDumpableUnit, "-p", "DynamicUser=yes", "-p",
                   "LimitCORE=infinity", "sleep", "120"})
                  .status,
              0);
    const auto plain = unit_property(kDumpableUnit, "MainPID");
    // Until it has exec'd sleep, the unit's process is systemd's child still
    // running as root.
    ASSERT_TRUE(eventually(10, [&] { return read_file("/proc/" + plain + "/comm") == "sleep\n"; }))
        << read_file("/proc/" + plain + "/comm");
    EXPECT_NE(proc_owner(plain), 0U) << "control: a dynamic user's process owns its /proc files";
    EXPECT_EQ(proc_owner(before), 0U) << "the gateway is dumpable";
    EXPECT_EQ(core_limits(plain), "unlimited unlimited") << "control: the limits read as set";
    EXPECT_EQ(core_limits(before), "0 0");
    std::cout << "[ gateway  ] core limits " << core_limits(before) << " (control " << core_limits(plain) << "); /proc/"
              << before << "/status owned by uid " << proc_owner(before) << " (control: uid " << proc_owner(plain)
              << ")\n";
    (void)run({"systemctl", "stop", kDumpableUnit});

    const auto restarts = unit_property(kGatewayUnit, "NRestarts");
    const auto aborted = std::chrono::steady_clock::now();
    ASSERT_EQ(run({"systemctl", "kill", "-s", "ABRT", kGatewayUnit}).status, 0);
    std::string after;
    EXPECT_TRUE(eventually(10,
                           [&] {
                               after = gateway_main_pid();
                               return after != "0" && after != before &&
                                      contains(gateway_records(unit, after), "NATIVE_RUNTIME_GATEWAY_STATUS=200");
                           }))
        << "the session got no answer from a restarted gateway within 10 s: " << gateway_messages(after);
    std::cout
        << "[ abort    ] MainPID " << before << " -> " << after << ", answered again within "
        << std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - aborted).count()
        << " ms of the abort\n";
    EXPECT_NE(unit_property(kGatewayUnit, "NRestarts"), restarts);
    EXPECT_TRUE(eventually(10, [] { return contains(systemd_says(kGatewayUnit), "code=killed, status=6/ABRT"); }))
        << systemd_says(kGatewayUnit);
    EXPECT_FALSE(contains(systemd_says(kGatewayUnit), "code=dumped")) << systemd_says(kGatewayUnit);
    // Should a core appear (a mechanism gone), what it holds says what
    // the two mechanisms are for.
    const auto token = session_env(unit, "OPENAI_API_KEY");
    for (const auto& core : cores_written()) {
        const auto held = read_file(std::string(kCores) + "/" + core);
        ADD_FAILURE() << "a core of the gateway was written: " << core << ", " << held.size()
                      << " bytes; holds the provider key: " << (contains(held, real_key_) ? "yes" : "no")
                      << "; holds the session's token: " << (!token.empty() && contains(held, token) ? "yes" : "no");
    }

    (void)run({kCtl, "stop", "--owner", "alice", "--chat", "gwunitabort"});
    (void)session.wait();
    std::filesystem::remove(kCoresDropIn);
    (void)run({"systemctl", "daemon-reload"});
    (void)run({"systemctl", "restart", kGatewayUnit});
    std::filesystem::remove_all(kCores);
}
