#include "sys/seccomp_filter.h"

#include "core/error.h"

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

struct ContextDeleter {
    void operator()(scmp_filter_ctx ctx) const { seccomp_release(ctx); }
};
using Context = std::unique_ptr<void, ContextDeleter>;

void check(int rc, const std::string& what)
{
    if (rc < 0) {
        fail(ErrorKind::LaunchFailed, "seccomp: " + what + ": " + std::strerror(-rc));
    }
}

} // namespace

bool syscall_name_is_known(const std::string& name)
{
    return seccomp_syscall_resolve_name(name.c_str()) != __NR_SCMP_ERROR;
}

UniqueFd export_seccomp_filter(const core::SeccompPolicy& policy)
{
    Context ctx(seccomp_init(SCMP_ACT_ALLOW));
    if (!ctx) {
        fail(ErrorKind::LaunchFailed, "seccomp: cannot allocate a filter");
    }
    // Syscalls made through a foreign ABI carry numbers the native deny-list
    // does not name, so they are killed outright rather than allowed.
    if (policy.kill_foreign_abis) {
        check(seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS), "bad-arch action");
    }
    // NoNewPrivileges is set by systemd on the unit already; bwrap installs the
    // filter itself, so libseccomp must not try to set it again here.
    check(seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_NNP, 0), "no-new-privs attribute");
    for (const auto& rule : policy.denied) {
        const int nr = seccomp_syscall_resolve_name(rule.name.c_str());
        if (nr == __NR_SCMP_ERROR) {
            fail(ErrorKind::LaunchFailed, "seccomp: unknown syscall name " + rule.name);
        }
        check(seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(static_cast<std::uint16_t>(rule.errno_value)), nr, 0),
              "rule for " + rule.name);
    }
    UniqueFd fd(memfd_create("native-runtime-seccomp", MFD_CLOEXEC | MFD_ALLOW_SEALING));
    if (!fd.valid()) {
        fail(ErrorKind::LaunchFailed, std::string("seccomp: memfd_create: ") + std::strerror(errno));
    }
    check(seccomp_export_bpf(ctx.get(), fd.get()), "export");
    if (lseek(fd.get(), 0, SEEK_SET) != 0) {
        fail(ErrorKind::LaunchFailed, std::string("seccomp: lseek: ") + std::strerror(errno));
    }
    // Nothing may change the program between export and bwrap loading it.
    if (fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
        fail(ErrorKind::LaunchFailed, std::string("seccomp: sealing the memfd: ") + std::strerror(errno));
    }
    return fd;
}

} // namespace nr::sys
