// SPDX-License-Identifier: Apache-2.0
// nr-deny-landlock PROGRAM [ARGS...]: execs PROGRAM under a seccomp filter
// that answers landlock_create_ruleset, landlock_add_rule and
// landlock_restrict_self with ENOSYS, as a kernel without Landlock does.
// A test tool only (package native-runtime-tests): the integration suite
// puts it in front of the launcher, inside its harness, to show that
// preflight fails when the launcher cannot apply Landlock.

#include <seccomp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <initializer_list>

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: nr-deny-landlock PROGRAM [ARGS...]\n");
        return 64;
    }
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (ctx == nullptr) {
        std::fprintf(stderr, "nr-deny-landlock: seccomp_init failed\n");
        return 70;
    }
    for (const auto* name : {"landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"}) {
        const int nr = seccomp_syscall_resolve_name(name);
        if (nr == __NR_SCMP_ERROR || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0) != 0) {
            std::fprintf(stderr, "nr-deny-landlock: cannot deny %s\n", name);
            return 70;
        }
    }
    if (const int rc = seccomp_load(ctx); rc != 0) {
        std::fprintf(stderr, "nr-deny-landlock: seccomp_load: %s\n", std::strerror(-rc));
        return 70;
    }
    seccomp_release(ctx);
    execv(argv[1], argv + 1);
    std::fprintf(stderr, "nr-deny-landlock: exec %s: %s\n", argv[1], std::strerror(errno));
    return 127;
}
