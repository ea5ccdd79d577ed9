// SPDX-License-Identifier: Apache-2.0
// The installed launcher reading its spec from a helper channel (passed by
// systemd >= 257, or by native-runtime-claim on older ones), given what a
// stranger might put there instead of the helper's sealed memfd. Runs on
// every host: it starts the launcher by hand, as an unprivileged user, with
// a socket pair the test holds in the helper's place.
#include "fixture.h"
#include "process.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <pwd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

using namespace nr::itest;

namespace {

// The byte form of a launch spec (core/launch/launch_spec_bytes.h), written
// here again so that this test pins the layout the launcher reads: only
// bwrap's argv and the dirs base are set, every other field is empty.
std::string little_endian(std::uint64_t value, std::size_t bytes)
{
    std::string out;
    for (std::size_t i = 0; i < bytes; ++i) {
        out.push_back(static_cast<char>(value & 0xffU));
        value >>= 8U;
    }
    return out;
}

std::string field(const std::string& text)
{
    return little_endian(text.size(), 4) + text;
}

std::string spec_bytes(const std::vector<std::string>& bwrap_argv, const std::string& dirs_base)
{
    std::string out("nr-spec\x01", 8);
    out += little_endian(bwrap_argv.size(), 4);
    for (const auto& arg : bwrap_argv) {
        out += field(arg);
    }
    out += little_endian(0, 4); // environment
    out += little_endian(0, 4); // denied_syscalls
    out += little_endian(1, 1); // kill_foreign_abis
    out += field(dirs_base);    // dirs_base
    out += little_endian(0, 4); // private_dirs
    out += field("");           // admission_queue
    out += little_endian(0, 4); // checked_dirs
    out += little_endian(0, 2); // gateway_port
    out += field("");           // protected_base
    out += little_endian(0, 4); // protected_paths
    return out;
}

// The helper's one message: 'S' and one descriptor.
bool send_one_descriptor(int socket, int fd)
{
    char byte = 'S';
    iovec iov{&byte, 1};
    alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int))> control{};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
    return sendmsg(socket, &msg, MSG_NOSIGNAL) == 1;
}

// A memfd holding `bytes`, sealed against any change, made by whoever runs
// this (root here; `uid` != 0 makes it in a child running as that uid).
int sealed_memfd_of(const std::string& bytes, uid_t uid)
{
    std::array<int, 2> pair{};
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair.data()) != 0) {
        return -1;
    }
    const pid_t child = fork();
    if (child == 0) {
        if (uid != 0 && (setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0)) {
            _exit(97);
        }
        const int fd = memfd_create("nr-forged-spec", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd < 0 || write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()) ||
            fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) != 0) {
            _exit(98);
        }
        _exit(send_one_descriptor(pair[1], fd) ? 0 : 99);
    }
    close(pair[1]);
    int status = 0;
    waitpid(child, &status, 0);
    int received = -1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        char byte = 0;
        iovec iov{&byte, 1};
        alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int))> control{};
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.data();
        msg.msg_controllen = control.size();
        if (recvmsg(pair[0], &msg, MSG_CMSG_CLOEXEC) == 1 && CMSG_FIRSTHDR(&msg) != nullptr) {
            std::memcpy(&received, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof(int));
        }
    }
    close(pair[0]);
    return received;
}

// Sends `memfd` (or nothing, when -1) over a fresh channel, closes the
// helper's end, and runs the installed launcher as kStranger with the
// unit's end passed as systemd passes it: fd 3, LISTEN_PID its own pid,
// LISTEN_FDNAMES the channel's name.
Outcome launcher_given(int memfd, const std::string& names = "nr-helper-channel",
                       const std::string& program = kLauncher)
{
    std::array<int, 2> pair{};
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair.data()), 0);
    if (memfd >= 0) {
        EXPECT_TRUE(send_one_descriptor(pair[0], memfd));
        close(memfd);
    }
    close(pair[0]);
    const std::string script = "exec 3<&7 7<&-; export LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=" + names + "; exec " +
                               program + " --claim forged";
    auto outcome = run(as_user(kStranger, {"sh", "-c", script}), leaking_fd7(pair[1]));
    close(pair[1]);
    return outcome;
}

uid_t stranger_uid()
{
    const passwd* pw = getpwnam(kStranger);
    return pw != nullptr ? pw->pw_uid : 0;
}

constexpr int kLaunchFailed = 125;

} // namespace

TEST(ALauncherTakingItsSpecFromAHelperChannel, ReadsARootSealedMemfdAndJudgesTheSpecInIt)
{
    // Positive control for the refusals below: a memfd as the helper makes
    // it gets past every check of the descriptor, and the launcher judges
    // the spec itself (here one with a relative bwrap path).
    const int memfd = sealed_memfd_of(spec_bytes({"bwrap"}, "/var/lib/nr"), 0);
    ASSERT_GE(memfd, 0);
    const auto outcome = launcher_given(memfd);
    EXPECT_EQ(outcome.status, kLaunchFailed);
    EXPECT_TRUE(contains(outcome.err, "launch spec: bwrap_argv")) << outcome.err;
}

TEST(ALauncherTakingItsSpecFromAHelperChannel, RefusesASealedMemfdItsOwnUserMade)
{
    const auto uid = stranger_uid();
    ASSERT_NE(uid, 0U);
    const int memfd = sealed_memfd_of(spec_bytes({"bwrap"}, "/var/lib/nr"), uid);
    ASSERT_GE(memfd, 0);
    const auto outcome = launcher_given(memfd);
    EXPECT_EQ(outcome.status, kLaunchFailed);
    EXPECT_TRUE(contains(outcome.err, "owned by uid " + std::to_string(uid) + ", not 0")) << outcome.err;
}

TEST(ALauncherTakingItsSpecFromAHelperChannel, ThatTheHelperClosedEmptyIsReadAsAWithdrawnLaunch)
{
    const auto outcome = launcher_given(-1);
    EXPECT_EQ(outcome.status, kLaunchFailed);
    EXPECT_TRUE(contains(outcome.err, "withdrew the launch")) << outcome.err;
}

TEST(ALauncherTakingItsSpecFromAHelperChannel, RefusesADescriptorUnderAnotherName)
{
    const auto outcome = launcher_given(-1, "nr-launch-spec");
    EXPECT_EQ(outcome.status, kLaunchFailed);
    EXPECT_TRUE(contains(outcome.err, "nr-helper-channel")) << outcome.err;
}

namespace {

// Run as kStranger: takes descriptor 3 of process `pid` with pidfd_getfd
// and prints "took" or the errno's name.
std::string take_descriptor_3_of(pid_t pid)
{
    const std::string probe = "import ctypes,errno,os,sys\n"
                              "libc=ctypes.CDLL(None,use_errno=True)\n"
                              "pidfd=os.pidfd_open(int(sys.argv[1]))\n"
                              "fd=libc.syscall(438,pidfd,3,0)\n"
                              "print('took' if fd>=0 else errno.errorcode[ctypes.get_errno()])\n";
    return run(as_user(kStranger, {"python3", "-c", probe, std::to_string(pid)})).out;
}

std::vector<std::string> as_stranger_in_place(const std::string& script)
{
    // setpriv execs (runuser would fork), so the pid is the script's, and
    // then the launcher's.
    return {"setpriv", "--reuid", kStranger, "--regid", kStranger, "--init-groups", "sh", "-c", script};
}

std::string exe_of(pid_t pid)
{
    std::array<char, 256> target{};
    const auto n = readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), target.data(), target.size() - 1);
    return n > 0 ? std::string(target.data(), static_cast<std::size_t>(n)) : std::string();
}

uid_t owner_of_proc_status(pid_t pid)
{
    struct stat st {};
    return stat(("/proc/" + std::to_string(pid) + "/status").c_str(), &st) == 0 ? st.st_uid : static_cast<uid_t>(-1);
}

} // namespace

TEST(ALauncherHoldingItsHelperChannel, CannotHaveItTakenByAnotherProcessOfItsUser)
{
    // The test holds the helper's end and sends nothing, so the launcher
    // waits for its spec with the channel at descriptor 3.
    std::array<int, 2> pair{};
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair.data()), 0);
    const std::string script = "exec 3<&7 7<&-; export LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=nr-helper-channel; "
                               "exec " +
                               std::string(kLauncher) + " --claim forged";
    Background launcher(as_stranger_in_place(script), leaking_fd7(pair[1]));
    close(pair[1]);
    // Non-dumpable from the exec on (execute-only file): its /proc files
    // are root's as soon as /proc shows the launcher.
    ASSERT_TRUE(eventually(20, [&] { return exe_of(launcher.pid()) == kLauncher; }));
    EXPECT_EQ(owner_of_proc_status(launcher.pid()), 0U);
    EXPECT_EQ(take_descriptor_3_of(launcher.pid()), "EPERM\n");

    // Control: the same probe takes descriptor 3 of a dumpable process of
    // the same user.
    Background dumpable(as_stranger_in_place("exec 3</dev/null; exec sleep 30"));
    ASSERT_TRUE(eventually(20, [&] { return exe_of(dumpable.pid()) == "/usr/bin/sleep"; }));
    EXPECT_NE(owner_of_proc_status(dumpable.pid()), 0U);
    EXPECT_EQ(take_descriptor_3_of(dumpable.pid()), "took\n");
    kill(dumpable.pid(), SIGTERM);
    (void)dumpable.wait();

    // The launch then ends as withdrawn when the helper's end closes.
    close(pair[0]);
    const auto outcome = launcher.wait();
    EXPECT_EQ(outcome.status, kLaunchFailed);
    EXPECT_TRUE(contains(outcome.err, "withdrew the launch")) << outcome.err;
}

TEST(ALauncherStartedWithoutAHelperChannel, RefusesToStart)
{
    const auto outcome = run(as_user(kStranger, {kLauncher, "--claim", "forged"}));
    EXPECT_EQ(outcome.status, kLaunchFailed);
    EXPECT_TRUE(contains(outcome.err, "nr-helper-channel")) << outcome.err;
}

TEST(TheClaimShim, RefusesToStartWithAPassedDescriptor)
{
    // native-runtime-claim runs only where systemd passes no descriptor:
    // one passed to it is someone else's doing (OpenFile= in a drop-in).
    const int memfd = sealed_memfd_of(spec_bytes({"bwrap"}, "/var/lib/nr"), 0);
    ASSERT_GE(memfd, 0);
    const auto outcome = launcher_given(memfd, "nr-helper-channel", kClaimShim);
    EXPECT_EQ(outcome.status, kLaunchFailed);
    EXPECT_TRUE(contains(outcome.err, "to native-runtime-claim, which takes none")) << outcome.err;
}

TEST(TheClaimShim, GetsNoChannelOutsideASessionUnit)
{
    // Control for the refusal above: without descriptors it gets as far as
    // Launcher.Claim, which the helper refuses to a caller in no session
    // unit.
    const auto outcome = run(as_user(kStranger, {kClaimShim, "--claim", "forged"}));
    EXPECT_EQ(outcome.status, kLaunchFailed);
    EXPECT_TRUE(contains(outcome.err, "claiming the helper channel failed")) << outcome.err;
}

TEST(TheInstalledLauncher, LinksNoBusClientWhileTheClaimShimDoes)
{
    // What a session unit loads between systemd's exec and bwrap's: the
    // launcher alone on systemd >= 257. Control: the same probe finds
    // sdbus-c++ and libsystemd in native-runtime-claim, which needs them.
    const auto launcher = run({"ldd", kLauncher});
    const auto shim = run({"ldd", kClaimShim});
    ASSERT_EQ(launcher.status, 0) << launcher.err;
    ASSERT_EQ(shim.status, 0) << shim.err;
    EXPECT_TRUE(contains(launcher.out, "libseccomp")) << launcher.out;
    for (const std::string library : {"libsystemd", "libsdbus-c++", "libgcrypt", "liblzma", "libzstd"}) {
        EXPECT_FALSE(contains(launcher.out, library)) << library << " in\n" << launcher.out;
    }
    EXPECT_TRUE(contains(shim.out, "libsdbus-c++")) << shim.out;
    EXPECT_TRUE(contains(shim.out, "libsystemd")) << shim.out;
}

TEST(ASessionOnThisHostsSystemd, GetsItsHelperChannelFromSystemdWhereItCanAndFromTheClaimShimElsewhere)
{
    const int major = systemd_major();
    ASSERT_GE(major, 247) << "no systemd version read";
    const bool by_channel = major >= 257;
    const std::string unit = unit_of("alice", "channel");
    Background session(as_user(kWorker, ctl_run("alice", "channel", "shell", {"sh", "-c", "sleep 2; echo ran"})));
    ASSERT_TRUE(eventually(20, [&] { return session_is_running(unit); }));
    const auto exec = unit_property(unit, "ExecStart");
    const auto names = unit_property(unit, "ExtraFileDescriptorNames");
    const auto outcome = session.wait();
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(outcome.out, "ran\n");
    std::cout << "systemd " << major << ": ExecStart " << exec << "\nExtraFileDescriptorNames=" << names << '\n';
    EXPECT_TRUE(contains(exec, std::string("path=") + (by_channel ? kLauncher : kClaimShim))) << exec;
    EXPECT_EQ(names == "nr-helper-channel", by_channel) << names;
}
