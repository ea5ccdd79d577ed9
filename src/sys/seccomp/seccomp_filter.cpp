// SPDX-License-Identifier: Apache-2.0
#include "sys/seccomp/seccomp_filter.h"

#include "core/base/error.h"
#include "sys/base/sealed_memfd.h"
#include "sys/seccomp/seccomp_context.h"

#include <fcntl.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <memory>

namespace nr::sys {

namespace {

using core::ErrorKind;
using core::fail;

constexpr int kMaxErrno = 4095;           // what SECCOMP_RET_DATA can carry as an errno
constexpr unsigned kMaxArgumentIndex = 5; // syscalls take at most six arguments

void check(int rc, const std::string& what)
{
    check_seccomp(rc, "seccomp", what);
}

// libseccomp answers __NR_SCMP_ERROR for a name it does not know and a
// negative pseudo number for one that exists only on other architectures
// (e.g. "umount" or "socketcall" on x86_64); a rule for either would deny
// nothing here.
int native_syscall_number(const std::string& name)
{
    return seccomp_syscall_resolve_name(name.c_str());
}

} // namespace

bool syscall_name_is_known(const std::string& name)
{
    return native_syscall_number(name) >= 0;
}

UniqueFd export_seccomp_filter(const core::SeccompPolicy& policy)
{
    SeccompContext ctx(seccomp_init(SCMP_ACT_ALLOW));
    if (!ctx) {
        fail(ErrorKind::LaunchFailed, "seccomp: cannot allocate a filter");
    }
    // Syscalls made through a foreign ABI carry numbers the native deny-list
    // does not name, so they are killed outright rather than allowed. That
    // covers i386 (int 0x80: another audit arch) and x32, which shares the
    // x86_64 audit arch: libseccomp's x86_64 filter sends every number with
    // the x32 bit (0x40000000) set to this action too. (libseccomp's default
    // bad-arch action already kills the calling thread; this makes it the
    // whole process. The unit's SystemCallArchitectures=native is a second,
    // independent filter that kills them as well.)
    if (policy.kill_foreign_abis) {
        check(seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS), "bad-arch action");
    }
    // NoNewPrivileges is set by systemd on the unit already; bwrap installs the
    // filter itself, so libseccomp must not try to set it again here.
    check(seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_NNP, 0), "no-new-privs attribute");
    for (const auto& rule : policy.denied) {
        const int nr = native_syscall_number(rule.name);
        if (nr < 0) {
            fail(ErrorKind::LaunchFailed, "seccomp: not a syscall of this architecture: " + rule.name);
        }
        if (rule.errno_value <= 0 || rule.errno_value > kMaxErrno) {
            fail(ErrorKind::LaunchFailed, "seccomp: invalid errno in the rule for " + rule.name);
        }
        const auto action = SCMP_ACT_ERRNO(static_cast<std::uint16_t>(rule.errno_value));
        if (!rule.when) {
            check(seccomp_rule_add_exact(ctx.get(), action, nr, 0), "rule for " + rule.name);
            continue;
        }
        if (rule.when->index > kMaxArgumentIndex) {
            fail(ErrorKind::LaunchFailed, "seccomp: argument index out of range in the rule for " + rule.name);
        }
        // MASKED_EQ: datum_a is the mask, datum_b the value.
        const scmp_arg_cmp match{rule.when->index, SCMP_CMP_MASKED_EQ, rule.when->mask, rule.when->value};
        check(seccomp_rule_add_exact_array(ctx.get(), action, nr, 1, &match), "argument rule for " + rule.name);
    }
    auto fd = new_sealable_memfd("native-runtime-seccomp");
    check(seccomp_export_bpf(ctx.get(), fd.get()), "export");
    // Nothing may change the program between export and bwrap loading it.
    seal_and_rewind(fd.get(), "seccomp program");
    return fd;
}

} // namespace nr::sys
