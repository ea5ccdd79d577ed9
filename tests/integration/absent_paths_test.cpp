// SPDX-License-Identifier: Apache-2.0
// Paths a session must never reach, each tried five ways from inside: open
// it, open a symlink to it made in the workspace, hard-link it into the
// workspace, read it from a child process, and overwrite it. Every target is
// owned by the session's own UID, and the same probe run by the worker
// outside reads it (positive control): only the mount namespace stands in
// the way. After the attempts the host file is byte-for-byte unchanged.

#include "fixture.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

using namespace nr::itest;

namespace {

std::string contents(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void plant(const std::string& path)
{
    const auto outcome =
        run(as_user(kWorker, {"sh", "-c", "mkdir -p \"$(dirname \"$1\")\" && echo planted > \"$1\"", "sh", path}));
    ASSERT_EQ(outcome.status, 0) << path << ": " << outcome.err;
}

// The host's /tmp is shared by every harness on the host: a name of this
// run's own, so a suite running alongside never removes this run's file.
std::string host_tmp_canary()
{
    std::random_device device;
    return "/tmp/nr-host-tmp-canary-" + std::to_string(device());
}

class AnAbsentPath : public ::testing::TestWithParam<std::string> {};

} // namespace

TEST_P(AnAbsentPath, CannotBeReachedFromInsideInAnyOfFiveWays)
{
    const auto& target = GetParam();
    plant(target);
    const auto before = contents(target);

    auto outside = probe_outside(kWorker, {"escape", target});
    EXPECT_EQ(outside["read_direct"], "ok") << "positive control: the worker reads " << target;
    // As its owner: on a host with fs.protected_regular (systemd's default),
    // not even root may open someone else's file in /tmp with O_CREAT.
    ASSERT_EQ(run(as_user(kWorker, {"sh", "-c", "echo planted > \"$1\"", "sh", target})).status, 0)
        << "undo the control's overwrite";
    const auto planted = contents(target);

    auto inside = probe_inside("alice", "absent", {"escape", target});
    EXPECT_EQ(inside["exists"], "ENOENT") << target;
    EXPECT_TRUE(refused(inside["read_direct"])) << target;
    EXPECT_TRUE(refused(inside["via_symlink"])) << target;
    EXPECT_TRUE(refused(inside["via_hardlink"])) << target;
    EXPECT_TRUE(refused(inside["via_child"])) << target;
    EXPECT_EQ(contents(target), planted) << "the host file changed after the overwrite attempt: " << target;
    EXPECT_EQ(before, planted);
    (void)run({"rm", "-f", target}); // host /tmp is shared with the harness
}

INSTANTIATE_TEST_SUITE_P(
    TheTrustModelsAbsentList, AnAbsentPath,
    ::testing::Values(std::string(kDataDir) + "/app.sqlite",               // app data
                      std::string(kDataDir) + "/credentials/providers.db", // credential database
                      std::string(kDataDir) +
                          "/native-runtime/bob/chats/c/workspace/notes.txt",            // other owner's workspace
                      std::string(kDataDir) + "/native-runtime/bob/home/.config/token", // other owner's home
                      "/var/lib/nr-app-secrets/master.key",                             // configured hidden path
                      "/home/nrworker/.worker-secret",                                  // the worker's own home
                      host_tmp_canary(),                                                // host /tmp
                      "/var/tmp/nr-host-var-canary"));                                  // host /var

TEST(TheSystemBusSocket, IsAbsentFromTheSession)
{
    EXPECT_EQ(probe_outside(kWorker, {"escape", "/run/dbus/system_bus_socket"})["exists"], "ok") << "control";
    EXPECT_EQ(probe_inside("alice", "bus", {"escape", "/run/dbus/system_bus_socket"})["exists"], "ENOENT");
}

TEST(AProviderSessionDirectory, IsWritableForItsOwnerAndAbsentForOthers)
{
    const std::string base = std::string(kDataDir) + "/provider-sessions";
    for (const auto* owner : {"alice", "bob"}) {
        ASSERT_EQ(run(as_user(kWorker, {"mkdir", "-p", "-m", "0700", base + "/" + owner})).status, 0);
    }
    const std::string bobs = base + "/bob/history.jsonl";
    plant(bobs);
    EXPECT_EQ(probe_outside(kWorker, {"read", bobs})["read"], "ok") << "positive control";

    const auto mine =
        run(as_user(kWorker, ctl_run("alice", "provider", "probe-sessions", {"nr-probe", "write", base + "/alice/s"})));
    EXPECT_EQ(mine.status, 0) << mine.err;
    EXPECT_EQ(parse_lines(mine.out)["write"], "ok");
    EXPECT_EQ(contents(base + "/alice/s"), "") << "the file written inside is on the host";
    EXPECT_EQ(run({"test", "-f", base + "/alice/s"}).status, 0);

    const auto theirs =
        run(as_user(kWorker, ctl_run("alice", "provider2", "probe-sessions", {"nr-probe", "read", bobs})));
    EXPECT_EQ(parse_lines(theirs.out)["read"], "ENOENT");
}

TEST(AMissingProviderSessionDirectory, IsRefusedNotCreated)
{
    const std::string carol = std::string(kDataDir) + "/provider-sessions/carol";
    const auto outcome = run(as_user(kWorker, ctl_run("carol", "provider", "probe-sessions", {"nr-probe", "pids"})));
    EXPECT_EQ(outcome.status, 65);
    EXPECT_NE(outcome.err.find("org.metis.NativeRuntime1.Error.InvalidPath"), std::string::npos) << outcome.err;
    EXPECT_NE(run({"test", "-e", carol}).status, 0) << "nothing was created on the owner's behalf";
}
