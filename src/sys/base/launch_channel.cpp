// SPDX-License-Identifier: Apache-2.0
#include "sys/base/launch_channel.h"

#include "core/base/error.h"
#include "core/launch/launch_spec_bytes.h"
#include "sys/base/fd_passing.h"
#include "sys/base/sealed_memfd.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace nr::sys {

namespace {

using core::ErrorKind;
using core::fail;

constexpr char kSpecMessage = 'S';
constexpr char kWaitingMessage = 'W';
constexpr char kListenerMessage = 'L';
constexpr char kAcceptedMessage = 'A';
constexpr char kDoneMessage = 'D';
// Longer than any message, so that a longer one shows as truncated.
constexpr std::size_t kMaxMessage = 16;
// Room for more descriptors than the one expected, so that a message with
// several is seen whole (and every one of them closed) rather than cut.
constexpr std::size_t kMaxReceived = 8;

[[noreturn]] void refuse(const std::string& why)
{
    fail(ErrorKind::LaunchFailed, "the helper channel: " + why);
}

void wait_readable(int fd, std::chrono::milliseconds wait, std::string_view awaited)
{
    const auto deadline = std::chrono::steady_clock::now() + wait;
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            refuse("no " + std::string(awaited) + " within " + std::to_string(wait.count() / 1000) + " s");
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
    ssize_t length = 0; // -1: nothing waiting (non-blocking)
    char byte = 0;
    std::string payload; // the bytes after the first
    bool truncated = false;
    std::vector<UniqueFd> fds;
};

Received receive_message(int fd)
{
    Received out;
    std::array<char, kMaxMessage> data{};
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
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return out;
        }
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
    out.byte = out.length > 0 ? data[0] : '\0';
    if (out.length > 1) {
        out.payload.assign(data.data() + 1, static_cast<std::size_t>(out.length) - 1);
    }
    out.truncated = (msg.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) != 0;
    return out;
}

// One message of `kind`, `payload` and at most one descriptor; never
// blocks. False with errno set when it could not be sent.
bool send_message(int socket, char kind, std::string_view payload, int fd)
{
    std::string data(1, kind);
    data.append(payload);
    return send_with_descriptor(socket, data, fd, MSG_DONTWAIT);
}

std::string little_endian_u32(std::uint32_t value)
{
    std::string out;
    for (int i = 0; i < 4; ++i) {
        out.push_back(static_cast<char>(value & 0xffU));
        value >>= 8U;
    }
    return out;
}

std::uint32_t read_u32(std::string_view bytes)
{
    std::uint32_t value = 0;
    for (std::size_t i = 4; i > 0; --i) {
        value = (value << 8U) | static_cast<unsigned char>(bytes[i - 1]);
    }
    return value;
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

LaunchChannel new_launch_channel_if(bool wanted)
{
    return wanted ? new_launch_channel() : LaunchChannel{};
}

void send_launch_spec(int helper_end, const core::LaunchSpec& spec)
{
    const auto memfd =
        sealed_memfd("native-runtime-launch-spec", core::launch_spec_bytes(core::encode_launch_spec(spec)));
    if (!send_message(helper_end, kSpecMessage, {}, memfd.get())) {
        fail(ErrorKind::LaunchFailed, std::string("sending the launch spec: ") + std::strerror(errno));
    }
}

core::LaunchSpec receive_launch_spec(int unit_end, std::chrono::milliseconds wait, uid_t helper_uid)
{
    wait_readable(unit_end, wait, "launch spec");
    auto message = receive_message(unit_end);
    if (message.length <= 0 && message.fds.empty()) {
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

bool report_waiting(int unit_end, std::uint32_t ahead)
{
    return send_message(unit_end, kWaitingMessage, little_endian_u32(ahead), -1);
}

bool report_done(int unit_end)
{
    return send_message(unit_end, kDoneMessage, {}, -1);
}

void hand_over_listener(int unit_end, int listener, std::chrono::milliseconds wait)
{
    if (!send_message(unit_end, kListenerMessage, {}, listener)) {
        refuse(std::string("sending the gateway listener: ") + std::strerror(errno));
    }
    wait_readable(unit_end, wait, "answer to the gateway listener");
    const auto answer = receive_message(unit_end);
    if (answer.length <= 0) {
        refuse("the helper refused the gateway listener (see `journalctl -u native-runtimed`)");
    }
    if (answer.length != 1 || answer.byte != kAcceptedMessage || !answer.fds.empty()) {
        refuse("the helper's answer to the gateway listener is not an acceptance");
    }
}

std::optional<LauncherMessage> next_launcher_message(int helper_end)
{
    LauncherMessage out;
    Received message;
    try {
        message = receive_message(helper_end);
    } catch (const core::Error& e) {
        out.kind = LauncherMessage::Kind::Invalid;
        out.problem = e.what();
        return out;
    }
    if (message.length < 0) {
        return std::nullopt;
    }
    if (message.length == 0 && message.fds.empty()) {
        out.kind = LauncherMessage::Kind::Closed;
        return out;
    }
    if (!message.truncated && message.byte == kWaitingMessage && message.payload.size() == 4 && message.fds.empty()) {
        out.kind = LauncherMessage::Kind::Waiting;
        out.ahead = read_u32(message.payload);
        return out;
    }
    if (!message.truncated && message.byte == kDoneMessage && message.payload.empty() && message.fds.empty()) {
        out.kind = LauncherMessage::Kind::Done;
        return out;
    }
    if (!message.truncated && message.byte == kListenerMessage && message.payload.empty() && message.fds.size() == 1) {
        out.kind = LauncherMessage::Kind::Listener;
        out.listener = std::move(message.fds.front());
        return out;
    }
    out.kind = LauncherMessage::Kind::Invalid;
    out.problem = "a message that is neither a wait report nor a listener (" + std::to_string(message.length) +
                  " bytes, " + std::to_string(message.fds.size()) + " descriptors)";
    return out;
}

void acknowledge_listener(int helper_end)
{
    if (!send_message(helper_end, kAcceptedMessage, {}, -1)) {
        fail(ErrorKind::LaunchFailed, std::string("answering the gateway listener: ") + std::strerror(errno));
    }
}

} // namespace nr::sys
