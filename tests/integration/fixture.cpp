// SPDX-License-Identifier: Apache-2.0
#include "fixture.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace nr::itest {

namespace {

void must(const std::vector<std::string>& argv)
{
    const auto outcome = run(argv);
    if (outcome.status != 0) {
        throw std::runtime_error("setup step failed: " + argv.front() + ": " + outcome.err);
    }
}

// Users, groups and the app data dir live in the harness's overlay /etc and
// /var, so they vanish with it. The broker resolves group names in its
// policy when it loads it, hence the reload once the group exists.
class HarnessUsers : public ::testing::Environment {
public:
    void SetUp() override
    {
        must({"groupadd", "-f", "nr-callers"});
        must({"groupadd", "-f", "native-runtime"});
        must({"useradd", "-m", "-G", "nr-callers,native-runtime", kWorker});
        must({"useradd", "-m", "-G", "native-runtime", kStranger});
        must({"useradd", "-m", kOutsider});
        must({"install", "-d", "-o", kWorker, "-g", kWorker, "-m", "0750", kDataDir});
        // Another owner's file, owned by the same UID the sessions run as:
        // only the mount namespace can keep it out of alice's session.
        const std::string bob_home = std::string(kDataDir) + "/native-runtime/bob/home";
        must({"runuser", "-u", kWorker, "--", "mkdir", "-p", "-m", "0700", bob_home});
        must({"runuser", "-u", kWorker, "--", "sh", "-c", "echo bob-secret > " + bob_home + "/secret.txt"});
        must({"install", "-d", "-o", kWorker, "-m", "0700", "/var/lib/nr-app-secrets"});
        // The configured snapshot dir, provisioned as operators must: the
        // helper's preflight gate refuses sessions until it is 2770.
        must({"install", "-d", "-o", "root", "-g", "native-runtime", "-m", "2770", "/var/lib/nr-snapshots"});
        must({"busctl", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
              "ReloadConfig"});
    }
};

const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new HarnessUsers);

} // namespace

std::vector<std::string> ctl_run(const std::string& owner, const std::string& chat, const std::string& adapter,
                                 const std::vector<std::string>& command)
{
    std::vector<std::string> argv{kCtl, "run", "--owner", owner, "--chat", chat, "--adapter", adapter, "--"};
    argv.insert(argv.end(), command.begin(), command.end());
    return argv;
}

std::map<std::string, std::string> parse_lines(const std::string& text)
{
    std::map<std::string, std::string> values;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) {
            end = text.size();
        }
        const auto line = text.substr(start, end - start);
        const auto eq = line.find('=');
        if (eq != std::string::npos) {
            values[line.substr(0, eq)] = line.substr(eq + 1);
        }
        start = end + 1;
    }
    return values;
}

std::map<std::string, std::string> probe_inside(const std::string& owner, const std::string& chat,
                                                const std::vector<std::string>& probe_args, const SpawnOptions& options)
{
    std::vector<std::string> command{"nr-probe"};
    command.insert(command.end(), probe_args.begin(), probe_args.end());
    const auto outcome = run(as_user(kWorker, ctl_run(owner, chat, "probe", command)), options);
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    return parse_lines(outcome.out);
}

std::map<std::string, std::string> probe_outside(const std::string& user, const std::vector<std::string>& probe_args,
                                                 const SpawnOptions& options)
{
    std::vector<std::string> command{kProbe};
    command.insert(command.end(), probe_args.begin(), probe_args.end());
    const auto outcome = run(user == "root" ? command : as_user(user, command), options);
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    return parse_lines(outcome.out);
}

int systemd_major()
{
    // "systemd 257 (257.9-1~deb13u1)"
    const auto version = run({"systemctl", "--version"});
    const auto at = version.out.find("systemd ");
    return at == std::string::npos ? 0 : std::atoi(version.out.c_str() + at + 8);
}

std::string unit_property(const std::string& unit, const std::string& name)
{
    auto value = run({"systemctl", "show", "-p", name, "--value", unit}).out;
    while (!value.empty() && value.back() == '\n') {
        value.pop_back();
    }
    return value;
}

bool unit_is_active(const std::string& unit)
{
    return run({"systemctl", "is-active", "--quiet", unit}).status == 0;
}

bool session_is_running(const std::string& unit)
{
    const auto main_pid = unit_property(unit, "MainPID");
    if (main_pid.empty() || main_pid == "0") {
        return false;
    }
    std::error_code error;
    return std::filesystem::read_symlink("/proc/" + main_pid + "/exe", error) == kSupervisor;
}

void stop_helper()
{
    run({"systemctl", "stop", "native-runtimed.service"});
    run({"systemctl", "reset-failed", "native-runtimed.service"});
}

std::string HelperConfigForATest::current()
{
    std::ifstream in(kHelperConfig);
    return {(std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()};
}

HelperConfigForATest::HelperConfigForATest(const std::string& text) : saved_(current())
{
    std::ofstream(kHelperConfig, std::ios::trunc) << text;
    stop_helper();
}

HelperConfigForATest::~HelperConfigForATest()
{
    std::ofstream(kHelperConfig, std::ios::trunc) << saved_;
    stop_helper();
}

std::string random_key(const std::string& prefix)
{
    std::random_device device;
    return prefix + std::to_string(device()) + std::to_string(device());
}

std::string unit_of(const std::string& owner, const std::string& chat)
{
    return "native-runtime-" + owner + "-" + chat + ".service";
}

std::string home_of(const std::string& owner)
{
    return std::string(kDataDir) + "/native-runtime/" + owner + "/home";
}

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

bool says_read_only_file_system(const std::string& text)
{
    return contains(text, "Read-only file system") || contains(text, "read-only file system");
}

std::string read_file(const std::string& path)
{
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const std::string& path, const std::string& text)
{
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << text;
}

bool exists(const std::string& path)
{
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

std::string hex(const std::string& text)
{
    static constexpr const char* kDigits = "0123456789abcdef";
    std::string out;
    for (const unsigned char c : text) {
        out += kDigits[c >> 4U];
        out += kDigits[c & 0x0FU];
    }
    return out;
}

Outcome python_json(const std::string& text, const std::string& expression)
{
    std::string path = "/run/nr-json.XXXXXX";
    const int fd = mkstemp(path.data());
    if (fd < 0) {
        throw std::runtime_error("mkstemp failed for python_json");
    }
    close(fd);
    {
        std::ofstream out(path, std::ios::binary);
        out << text;
    }
    const auto outcome = run({"python3", "-c",
                              "import json, sys\n"
                              "doc = json.loads(open(sys.argv[1], 'rb').read())\n"
                              "print(json.dumps(eval(sys.argv[2])))\n",
                              path, expression});
    std::remove(path.c_str());
    return outcome;
}

} // namespace nr::itest
