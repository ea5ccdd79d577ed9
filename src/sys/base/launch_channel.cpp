// SPDX-License-Identifier: Apache-2.0
#include "sys/base/launch_channel.h"

#include "core/base/error.h"
#include "core/launch/launch_spec_bytes.h"
#include "sys/base/sealed_memfd.h"

#include <poll.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace nr::sys {

namespace {

using core::ErrorKind;
using core::fail;

constexpr char kSpecMessage = 'S';
// Room for more descriptors than the one expected, so that a message with
// several is seen whole (and every one of them closed) rather than cut.
constexpr std::size_t kMaxReceived = 8;

[[noreturn]] void refuse(const std::string& why)
{
    fail(ErrorKind::LaunchFailed, "the helper channel: " + why);
}

void wait_readable(int fd, std::chrono::milliseconds wait)
{
    const auto deadline = std::chrono::steady_clock::now() + wait;
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            refuse("no launch spec within " + std::to_string(wait.count() / 1000) + " s");
        }
        pollfd pfd{fd, POLLIN, 0};
        const int n = ::poll(&pfd, 1, static_cast<int>(left.count()));
        if (n > 0) {
            return;
        }
        if (n < 0 && errno != EINTR) {
            refuse(std::string("poll: ") + std::strerror(errno));
        }
    }
}

// The one message: its data byte and every descriptor it carried, each
// owned (closed unless kept).
struct Received {
    ssize_t length = 0;
    char byte = 0;
    bool truncated = false;
    std::vector<UniqueFd> fds;
};

Received receive_message(int fd)
{
    Received out;
    std::array<char, 16> data{};
    iovec iov{data.data(), data.size()};
    alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int) * kMaxReceived)> control{};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    while ((out.length = ::recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT)) < 0 && errno == EINTR) {
    }
    if (out.length < 0) {
        refuse(std::string("recvmsg: ") + std::strerror(errno));
    }
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
            continue;
        }
        const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (std::size_t i = 0; i < count; ++i) {
            int received = -1;
            std::memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            out.fds.emplace_back(received);
        }
    }
    out.byte = out.length > 0 ? data[0] : 0;
    out.truncated = (msg.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) != 0;
    return out;
}

} // namespace

LaunchChannel new_launch_channel()
{
    std::array<int, 2> fds{};
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds.data()) != 0) {
        fail(ErrorKind::SystemdFailure, std::string("socketpair for a helper channel: ") + std::strerror(errno));
    }
    return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

void send_launch_spec(int helper_end, const core::LaunchSpec& spec)
{
    const auto memfd =
        sealed_memfd("native-runtime-launch-spec", core::launch_spec_bytes(core::encode_launch_spec(spec)));
    char byte = kSpecMessage;
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
    const int fd = memfd.get();
    std::memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
    while (::sendmsg(helper_end, &msg, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
        if (errno != EINTR) {
            fail(ErrorKind::LaunchFailed, std::string("sending the launch spec: ") + std::strerror(errno));
        }
    }
}

core::LaunchSpec receive_launch_spec(int unit_end, std::chrono::milliseconds wait, uid_t helper_uid)
{
    wait_readable(unit_end, wait);
    auto message = receive_message(unit_end);
    if (message.length == 0 && message.fds.empty()) {
        refuse("the helper closed it without sending a launch spec (it withdrew the launch: see `journalctl -u "
               "native-runtimed`)");
    }
    if (message.truncated || message.length != 1 || message.byte != kSpecMessage) {
        refuse("the message is not a launch spec");
    }
    if (message.fds.size() != 1) {
        refuse("the message carries " + std::to_string(message.fds.size()) + " descriptors, not one");
    }
    const auto bytes =
        read_sealed_memfd(message.fds.front().get(), helper_uid, core::kMaxLaunchSpecBytes, "the launch spec");
    // Decoded before anything is applied: a spec this launcher could not
    // apply exactly is refused (LaunchFailed), never applied in part.
    return core::decode_launch_spec(core::launch_spec_from_bytes(bytes));
}

} // namespace nr::sys
