#include "sys/seccomp_notify.h"

#include "core/error.h"
#include "sys/seccomp_context.h"

#include <seccomp.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace nr::sys {

namespace {

using core::ErrorKind;
using core::fail;

void check(int rc, const std::string& what)
{
    check_seccomp(rc, "supervised seccomp filter", what);
}

// One byte of data and room for one descriptor: the message both ends of
// the listener hand-over use. Not copyable: the header points into itself.
struct DescriptorMessage {
    explicit DescriptorMessage(char data) : byte(data)
    {
        header.msg_iov = &iov;
        header.msg_iovlen = 1;
        header.msg_control = control;
        header.msg_controllen = sizeof(control);
    }
    DescriptorMessage(const DescriptorMessage&) = delete;
    DescriptorMessage& operator=(const DescriptorMessage&) = delete;

    char byte;
    iovec iov{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {}; // NOLINT(*-avoid-c-arrays): cmsg ABI
    msghdr header{};
};

} // namespace

std::vector<core::SupervisedCall> supervised_calls(const std::vector<core::SyscallRule>& rules)
{
    std::vector<core::SupervisedCall> calls;
    for (const auto& rule : rules) {
        const int nr = seccomp_syscall_resolve_name(rule.name.c_str());
        if (nr < 0 || rule.when) {
            fail(ErrorKind::LaunchFailed, "supervised seccomp filter: cannot supervise " + rule.name);
        }
        calls.push_back(core::SupervisedCall{nr, rule.name, rule.errno_value});
    }
    return calls;
}

UniqueFd load_notify_filter(const std::vector<core::SupervisedCall>& calls)
{
    SeccompContext ctx(seccomp_init(SCMP_ACT_ALLOW));
    if (!ctx) {
        fail(ErrorKind::LaunchFailed, "supervised seccomp filter: cannot allocate");
    }
    // NoNewPrivileges is the unit's; foreign ABIs are bwrap's filter's to kill.
    check(seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_NNP, 0), "no-new-privs attribute");
    for (const auto& call : calls) {
        check(seccomp_rule_add_exact(ctx.get(), SCMP_ACT_NOTIFY, call.number, 0), "rule for " + call.name);
    }
    check(seccomp_load(ctx.get()), "load");
    const int fd = seccomp_notify_fd(ctx.get());
    if (fd < 0) {
        fail(ErrorKind::LaunchFailed, "supervised seccomp filter: no listener");
    }
    return UniqueFd(fd);
}

void send_descriptor(int socket, int fd)
{
    DescriptorMessage message('F');
    msghdr& msg = message.header;
    cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
    while (sendmsg(socket, &msg, MSG_NOSIGNAL) < 0) {
        if (errno != EINTR) {
            fail(ErrorKind::LaunchFailed, std::string("sending a descriptor (SCM_RIGHTS): ") + std::strerror(errno));
        }
    }
}

UniqueFd receive_descriptor(int socket)
{
    DescriptorMessage message(0);
    msghdr& msg = message.header;
    ssize_t n = 0;
    while ((n = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
    }
    const cmsghdr* cmsg = n > 0 ? CMSG_FIRSTHDR(&msg) : nullptr;
    if (cmsg == nullptr || cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS ||
        cmsg->cmsg_len != CMSG_LEN(sizeof(int))) {
        return UniqueFd(-1);
    }
    int fd = -1;
    std::memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
    return UniqueFd(fd);
}

} // namespace nr::sys
