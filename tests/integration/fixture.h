// SPDX-License-Identifier: Apache-2.0
#pragma once
// What every integration test shares: the users the test setup creates in
// the harness, the installed paths, and short ways to run the CLI and the
// probe inside a session or, as positive control, outside one.

#include <map>
#include <string>
#include <vector>

#include "process.h"

namespace nr::itest {

inline constexpr const char* kWorker = "nrworker";     // configured caller
inline constexpr const char* kStranger = "nrstranger"; // passes the bus policy, not the config
inline constexpr const char* kOutsider = "nroutsider"; // not even in the bus policy group
inline constexpr const char* kDataDir = "/var/lib/nr-app-data";
inline constexpr const char* kProbe = "/usr/libexec/native-runtime/tests/nr-probe";
inline constexpr const char* kCtl = "native-runtimectl";
inline constexpr const char* kSupervisor = "/usr/libexec/native-runtime/native-runtime-supervise";

// native-runtimectl run --owner O --chat C --adapter A -- command...
std::vector<std::string> ctl_run(const std::string& owner, const std::string& chat, const std::string& adapter,
                                 const std::vector<std::string>& command);

// Runs the probe in a session of (owner, chat) as the worker; parsed key=value output.
std::map<std::string, std::string> probe_inside(const std::string& owner, const std::string& chat,
                                                const std::vector<std::string>& probe_args,
                                                const SpawnOptions& options = {});

// Runs the probe directly as `user`, outside any sandbox.
std::map<std::string, std::string> probe_outside(const std::string& user, const std::vector<std::string>& probe_args,
                                                 const SpawnOptions& options = {});

std::map<std::string, std::string> parse_lines(const std::string& text);

// The major version of the systemd this host runs (`systemctl --version`),
// 0 when it cannot be read.
int systemd_major();

// `systemctl show -p NAME --value UNIT`
std::string unit_property(const std::string& unit, const std::string& name);

// `systemctl is-active UNIT`: true as soon as systemd has spawned the
// launcher, before it has claimed its spec.
bool unit_is_active(const std::string& unit);

// The launcher has claimed its spec, forked bwrap and become the supervisor:
// from here on the session runs without the helper that started it.
bool session_is_running(const std::string& unit);

std::string hex(const std::string& text);

// The helper's config file in the harness.
inline constexpr const char* kHelperConfig = "/etc/native-runtime/config.yaml";

// Stops the helper and clears its start rate counter, so that the next bus
// call activates one that reads the config afresh (tests restart it far
// more often than systemd's default of 5 starts in 10 s allows).
void stop_helper();

// The helper's config replaced by `text` while this lives (the helper
// stopped, see stop_helper); the original put back, and the helper stopped
// again, however the test ends.
class HelperConfigForATest {
public:
    explicit HelperConfigForATest(const std::string& text);
    HelperConfigForATest(const HelperConfigForATest&) = delete;
    HelperConfigForATest& operator=(const HelperConfigForATest&) = delete;
    HelperConfigForATest(HelperConfigForATest&&) = delete;
    HelperConfigForATest& operator=(HelperConfigForATest&&) = delete;
    ~HelperConfigForATest();

    // The config file's text now.
    static std::string current();

private:
    std::string saved_;
};

// Parses `text` with Python's json module (strict: invalid JSON or bytes
// that are not UTF-8 fail) and prints json.dumps(EXPRESSION) over `doc`,
// e.g. python_json(out, "doc['owner']") -> status 0, out "\"carol\"\n".
Outcome python_json(const std::string& text, const std::string& expression);

// A probe result that reports a failure: present and not "ok". An absent
// key (the probe never ran that step) is not a refusal.
inline bool refused(const std::string& result)
{
    return !result.empty() && result != "ok";
}

// The launcher's installed path, and where tests that wrap it keep the real one.
inline constexpr const char* kLauncher = "/usr/libexec/native-runtime/native-runtime-launch";
// ExecStart of a session unit on systemd < 257 (core/launch/spec_delivery.h).
inline constexpr const char* kClaimShim = "/usr/libexec/native-runtime/native-runtime-claim";
inline constexpr const char* kRealLauncherCopy = "/usr/libexec/native-runtime/tests/nr-launch-real";

// A value no test writes twice: prefix plus 64 random bits, in decimal.
std::string random_key(const std::string& prefix);

// The session unit of (owner, chat) as the helper names it.
std::string unit_of(const std::string& owner, const std::string& chat);

// The owner's home under the test config's data directory.
std::string home_of(const std::string& owner);

bool contains(const std::string& text, const std::string& part);

// The EROFS message as a shell prints it: "Read-only file system" from bash
// and coreutils (strerror), "read-only file system" from zsh, which Claude
// Code runs its tools in wherever zsh is installed.
bool says_read_only_file_system(const std::string& text);

// The file's whole content; empty when it cannot be read.
std::string read_file(const std::string& path);

// Writes `text` to `path`, its parent directories made first.
void write_file(const std::string& path, const std::string& text);

// Whether anything, a dangling symlink included, is at `path`.
bool exists(const std::string& path);

} // namespace nr::itest
