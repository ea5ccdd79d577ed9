// SPDX-License-Identifier: Apache-2.0
#include "sys/base/notify_responder.h"

#include "core/base/error.h"

#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace nr::sys {

namespace {

// The kernel may know larger structures than these headers do; it writes
// its own size, so the buffers are as large as the larger of the two
// (seccomp_unotify(2)).
seccomp_notif_sizes kernel_sizes()
{
    seccomp_notif_sizes sizes{};
    if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0U, &sizes) != 0) {
        core::fail(core::ErrorKind::LaunchFailed,
                   std::string("supervised seccomp filter: notification sizes: ") + std::strerror(errno));
    }
    return sizes;
}

bool ioctl_retrying(int fd, unsigned long request, void* argument)
{
    while (ioctl(fd, request, argument) != 0) {
        if (errno != EINTR) {
            return false;
        }
    }
    return true;
}

} // namespace

NotifyResponder::NotifyResponder(int listener, const std::vector<core::SupervisedCall>& calls) : listener_(listener)
{
    for (const auto& call : calls) {
        by_number_[call.number] = {call.name, call.errno_value};
    }
    const auto sizes = kernel_sizes();
    request_.resize(std::max<std::size_t>(sizes.seccomp_notif, sizeof(seccomp_notif)));
    response_.resize(std::max<std::size_t>(sizes.seccomp_notif_resp, sizeof(seccomp_notif_resp)));
}

std::optional<AnsweredCall> NotifyResponder::answer_one()
{
    std::fill(request_.begin(), request_.end(), 0);
    if (!ioctl_retrying(listener_, SECCOMP_IOCTL_NOTIF_RECV, request_.data())) {
        return std::nullopt; // the caller was killed before we read it
    }
    seccomp_notif request{};
    std::memcpy(&request, request_.data(), sizeof(request));
    AnsweredCall call;
    const auto known = by_number_.find(request.data.nr);
    call.syscall = known == by_number_.end() ? "syscall " + std::to_string(request.data.nr) : known->second.first;
    call.errno_value = known == by_number_.end() ? ENOSYS : known->second.second;
    call.pid = static_cast<int>(request.pid);

    seccomp_notif_resp response{};
    response.id = request.id;
    response.val = 0;
    response.error = -call.errno_value;
    response.flags = 0; // never SECCOMP_USER_NOTIF_FLAG_CONTINUE
    std::fill(response_.begin(), response_.end(), 0);
    std::memcpy(response_.data(), &response, sizeof(response));
    if (!ioctl_retrying(listener_, SECCOMP_IOCTL_NOTIF_SEND, response_.data())) {
        return std::nullopt; // the caller is gone: nothing ran
    }
    return call;
}

} // namespace nr::sys
