// SPDX-License-Identifier: Apache-2.0
#include "sys/net/netns_listener.h"

#include "core/base/error.h"
#include "sys/base/exec_setup.h"
#include "sys/base/fd_passing.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <string>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace nr::sys {

namespace {

using core::ErrorKind;
using core::fail;

[[noreturn]] void step_failed(const std::string& step)
{
    fail(ErrorKind::LaunchFailed, "gateway network namespace: " + step + ": " + std::strerror(errno));
}

void write_proc_file(const char* path, const std::string& text)
{
    const UniqueFd fd(open(path, O_WRONLY | O_CLOEXEC));
    if (!fd.valid()) {
        step_failed(std::string("open ") + path);
    }
    const auto written = write(fd.get(), text.data(), text.size());
    if (written != static_cast<ssize_t>(text.size())) {
        step_failed(std::string("write ") + path);
    }
}

// A fresh network namespace has `lo` down: without this the listener on
// 127.0.0.1 would be unreachable from inside, which the agent would see as
// a gateway that refuses every connection.
void bring_loopback_up()
{
    const UniqueFd sock(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!sock.valid()) {
        step_failed("socket for lo");
    }
    ifreq request{};
    std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
    if (ioctl(sock.get(), SIOCGIFFLAGS, &request) != 0) {
        step_failed("SIOCGIFFLAGS lo");
    }
    request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP); // NOLINT(hicpp-signed-bitwise): ifreq ABI
    if (ioctl(sock.get(), SIOCSIFFLAGS, &request) != 0) {
        step_failed("SIOCSIFFLAGS lo up");
    }
}

// unshare(CLONE_NEWUSER | CLONE_NEWNET), then the caller's uid and gid
// mapped to themselves (setgroups denied first, as an unprivileged gid_map
// needs) and `lo` up. Needs a single-threaded, dumpable caller: a
// non-dumpable process's /proc/self files belong to root (drop_all_but).
void enter_private_network()
{
    const auto uid = getuid();
    const auto gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
        step_failed("unshare(CLONE_NEWUSER|CLONE_NEWNET)");
    }
    write_proc_file("/proc/self/setgroups", "deny");
    write_proc_file("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1");
    write_proc_file("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1");
    bring_loopback_up();
}

// The forked child keeps only its answer socket (not the launcher's helper
// channel), and only then makes itself dumpable, as writing its own
// uid_map needs: its memory holds nothing secret yet, its parent never
// becomes dumpable.
void drop_all_but(int keep)
{
    close_fds_above_stderr_except(keep);
    if (prctl(PR_SET_DUMPABLE, 1) != 0) {
        step_failed("prctl(PR_SET_DUMPABLE)");
    }
}

} // namespace

PrivateNetwork make_private_network()
{
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
        step_failed("socketpair");
    }
    UniqueFd ours(pair[0]);
    UniqueFd theirs(pair[1]);
    const pid_t child = fork();
    if (child < 0) {
        step_failed("fork");
    }
    if (child == 0) {
        int status = 0;
        try {
            drop_all_but(theirs.get());
            enter_private_network();
            const UniqueFd user(::open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC));
            const UniqueFd net(::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC));
            if (!user.valid() || !net.valid()) {
                step_failed("open /proc/self/ns");
            }
            send_descriptor(theirs.get(), user.get());
            send_descriptor(theirs.get(), net.get());
        } catch (const std::exception& e) {
            std::cerr << "native-runtime-launch: " << e.what() << std::endl;
            status = 1;
        }
        _exit(status);
    }
    theirs.reset();
    PrivateNetwork network;
    network.user_ns = receive_descriptor(ours.get());
    network.net_ns = receive_descriptor(ours.get());
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (!network.user_ns.valid() || !network.net_ns.valid() || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fail(ErrorKind::LaunchFailed, "gateway network namespace: the process that makes it failed");
    }
    return network;
}

void join_private_network(const PrivateNetwork& network)
{
    if (setns(network.user_ns.get(), CLONE_NEWUSER) != 0) {
        step_failed("setns(user namespace)");
    }
    if (setns(network.net_ns.get(), CLONE_NEWNET) != 0) {
        step_failed("setns(network namespace)");
    }
}

UniqueFd listen_on_loopback(std::uint16_t port)
{
    UniqueFd sock(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!sock.valid()) {
        step_failed("socket for the gateway listener");
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): sockaddr ABI
    if (bind(sock.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
        step_failed("bind 127.0.0.1:" + std::to_string(port));
    }
    if (listen(sock.get(), SOMAXCONN) != 0) {
        step_failed("listen on 127.0.0.1:" + std::to_string(port));
    }
    return sock;
}

} // namespace nr::sys
