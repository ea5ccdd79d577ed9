// SPDX-License-Identifier: Apache-2.0
#include "sys/seccomp/seccomp_notify.h"

#include "core/base/error.h"
#include "sys/seccomp/seccomp_context.h"

#include <seccomp.h>

namespace nr::sys {

namespace {

using core::ErrorKind;
using core::fail;

void check(int rc, const std::string& what)
{
    check_seccomp(rc, "supervised seccomp filter", what);
}

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

} // namespace nr::sys
