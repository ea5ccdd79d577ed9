// SPDX-License-Identifier: Apache-2.0
// What a session cannot do to gain privileges or reach kernel interfaces it
// has no business with, and what the seccomp filter does about it.
//
// Every attempt runs through nr-probe's `try` verb (a real, harmless call)
// or its `try-invalid` verb (the call with an argument the kernel rejects).
// The second kind is what ties a refusal to the filter: seccomp answers
// before the kernel reads any argument, so EPERM for a bad pointer or a bad
// descriptor can only come from the filter, while a session without it would
// get the kernel's EFAULT/EBADF/EINVAL (or, for calls that check a
// capability first, the same EPERM it gets for a real attempt). Positive
// controls run the same probe outside any sandbox, as the worker or, where
// the call needs a capability, as root.

#include "fixture.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace nr::itest;

namespace {

using Results = std::map<std::string, std::string>;

const std::vector<std::string> kRealAttempts{"mount",
                                             "unshare-user",
                                             "unshare-mount",
                                             "clone-newuser",
                                             "userns-mount",
                                             "setns",
                                             "keyctl",
                                             "add_key",
                                             "request_key",
                                             "ptrace",
                                             "process_vm_readv",
                                             "process_vm_writev",
                                             "perf_event_open",
                                             "bpf",
                                             "userfaultfd",
                                             "open_tree",
                                             "fsopen",
                                             "fspick",
                                             "clone3",
                                             "thread",
                                             "spawn",
                                             "tiocsti",
                                             "tiocsti-high",
                                             "tioclinux",
                                             "tioclinux-high",
                                             "tiocgwinsz",
                                             "x32-getpid",
                                             "personality",
                                             "personality-query",
                                             "sched-fifo",
                                             "raise-rtprio",
                                             "rtprio-limits",
                                             "socket-vsock"};

// Each denied syscall with an invalid argument; ioctl-tiocgwinsz is an
// ioctl request the filter does not name.
const std::vector<std::string> kInvalidAttempts{"mount",
                                                "umount2",
                                                "pivot_root",
                                                "unshare",
                                                "setns",
                                                "open_tree",
                                                "move_mount",
                                                "fsopen",
                                                "fsconfig",
                                                "fsmount",
                                                "fspick",
                                                "mount_setattr",
                                                "keyctl",
                                                "add_key",
                                                "request_key",
                                                "ptrace",
                                                "process_vm_readv",
                                                "process_vm_writev",
                                                "perf_event_open",
                                                "bpf",
                                                "userfaultfd",
                                                "kexec_load",
                                                "kexec_file_load",
                                                "init_module",
                                                "finit_module",
                                                "delete_module",
                                                "clone3",
                                                "syslog",
                                                "adjtimex",
                                                "clock_adjtime",
                                                "clock_settime",
                                                "settimeofday",
                                                "pidfd_getfd",
                                                "modify_ldt",
                                                "ustat",
                                                "listen",
                                                "accept",
                                                "accept4",
                                                "io_uring_setup",
                                                "io_uring_enter",
                                                "io_uring_register",
                                                "ioctl-tiocsti",
                                                "ioctl-tiocsti-high",
                                                "ioctl-tioclinux",
                                                "ioctl-tioclinux-high",
                                                "ioctl-tiocgwinsz"};

std::vector<std::string> verb(const std::string& name, const std::vector<std::string>& attempts)
{
    std::vector<std::string> args{name};
    args.insert(args.end(), attempts.begin(), attempts.end());
    return args;
}

// One session per verb and profile runs every attempt, each in a child
// process of its own (so no attempt changes what the next one sees); the
// tests read their lines from it. A session per attempt would show nothing
// more and take a minute.
const Results& inside_real()
{
    static const Results results = probe_inside("alice", "priv-try", verb("try", kRealAttempts));
    return results;
}

const Results& inside_invalid()
{
    static const Results results = probe_inside("alice", "priv-invalid", verb("try-invalid", kInvalidAttempts));
    return results;
}

// The `probe-nested` adapter is the probe with nested_userns: true.
const Results& nested_real()
{
    static const Results results = [] {
        auto command = verb("try", kRealAttempts);
        command.insert(command.begin(), "nr-probe");
        const auto outcome = run(as_user(kWorker, ctl_run("alice", "priv-nested", "probe-nested", command)));
        EXPECT_EQ(outcome.status, 0) << outcome.err;
        return parse_lines(outcome.out);
    }();
    return results;
}

const Results& nested_invalid()
{
    static const Results results = [] {
        auto command = verb("try-invalid", kInvalidAttempts);
        command.insert(command.begin(), "nr-probe");
        const auto outcome = run(as_user(kWorker, ctl_run("alice", "priv-nested-invalid", "probe-nested", command)));
        EXPECT_EQ(outcome.status, 0) << outcome.err;
        return parse_lines(outcome.out);
    }();
    return results;
}

const Results& worker_real()
{
    static const Results results = probe_outside(kWorker, verb("try", kRealAttempts));
    return results;
}

const Results& worker_invalid()
{
    static const Results results = probe_outside(kWorker, verb("try-invalid", kInvalidAttempts));
    return results;
}

const Results& root_real()
{
    static const Results results = probe_outside("root", verb("try", kRealAttempts));
    return results;
}

const Results& root_invalid()
{
    static const Results results = probe_outside("root", verb("try-invalid", kInvalidAttempts));
    return results;
}

std::string at(const Results& results, const std::string& name)
{
    const auto found = results.find(name);
    return found == results.end() ? "(no result)" : found->second;
}

} // namespace

TEST(EveryDeniedSyscall, IsRefusedInsideBeforeTheKernelReadsItsArguments)
{
    for (const auto& name : kInvalidAttempts) {
        if (name == "ioctl-tiocgwinsz") {
            continue;
        }
        const auto expected = name == "clone3" ? "ENOSYS" : "EPERM";
        // Root outside, so that no capability check comes before the
        // arguments: the kernel answers EFAULT, EBADF, EINVAL, ... (ENOSYS
        // for kexec and modules on a kernel built without them).
        EXPECT_NE(at(root_invalid(), name), expected) << "positive control for " << name;
        EXPECT_NE(at(root_invalid(), name), "(no result)") << name;
        EXPECT_EQ(at(inside_invalid(), name), expected) << name;
    }
}

TEST(MountInsideASession, IsRefusedWithEperm)
{
    EXPECT_EQ(at(root_real(), "mount"), "ok") << "positive control: root mounts a tmpfs outside";
    EXPECT_EQ(at(worker_invalid(), "mount"), "EFAULT") << "positive control: the kernel reads the type pointer";
    EXPECT_EQ(at(inside_real(), "mount"), "EPERM");
    // Without the filter this would be EFAULT: the kernel copies the
    // arguments before it checks for CAP_SYS_ADMIN.
    EXPECT_EQ(at(inside_invalid(), "mount"), "EPERM");
    EXPECT_EQ(at(inside_invalid(), "umount2"), "EPERM");
}

TEST(UnshareOfAUserNamespaceInsideASession, IsRefusedWithEperm)
{
    EXPECT_EQ(at(worker_real(), "unshare-user"), "ok") << "positive control: the worker may create one outside";
    EXPECT_EQ(at(worker_real(), "userns-mount"), "ok") << "positive control: and mount a tmpfs inside it";
    // Without the filter bwrap's --disable-userns would answer ENOSPC.
    EXPECT_EQ(at(inside_real(), "unshare-user"), "EPERM");
    EXPECT_EQ(at(inside_real(), "userns-mount"), "EPERM");
}

TEST(UnshareOfAMountNamespaceInsideASession, IsRefusedWithEperm)
{
    EXPECT_EQ(at(root_real(), "unshare-mount"), "ok") << "positive control";
    EXPECT_EQ(at(worker_invalid(), "unshare"), "EINVAL") << "positive control: the kernel checks the flags first";
    EXPECT_EQ(at(inside_real(), "unshare-mount"), "EPERM");
    EXPECT_EQ(at(inside_invalid(), "unshare"), "EPERM");
}

TEST(CloneWithANewUserNamespaceInsideASession, IsRefusedBecauseUserNamespacesAreDisabled)
{
    // clone(2) flags are not filtered (clone3 is ENOSYS, see below); bwrap's
    // --disable-userns sets user.max_user_namespaces to 1 in the sandbox.
    EXPECT_EQ(at(worker_real(), "clone-newuser"), "ok") << "positive control";
    EXPECT_EQ(at(inside_real(), "clone-newuser"), "ENOSPC");
}

TEST(SetnsInsideASession, IsRefusedWithEperm)
{
    EXPECT_EQ(at(root_real(), "setns"), "ok") << "positive control: root re-enters its own mount namespace";
    EXPECT_EQ(at(worker_invalid(), "setns"), "EBADF") << "positive control";
    EXPECT_EQ(at(inside_real(), "setns"), "EPERM");
    EXPECT_EQ(at(inside_invalid(), "setns"), "EPERM");
}

TEST(PivotRootInsideASession, IsRefusedWithEperm)
{
    // No real attempt: a successful pivot_root outside would move the root
    // of the harness's mount namespace. The kernel checks CAP_SYS_ADMIN
    // first, so the control is root with bad pointers.
    EXPECT_EQ(at(root_invalid(), "pivot_root"), "EFAULT") << "positive control";
    EXPECT_EQ(at(inside_invalid(), "pivot_root"), "EPERM");
}

TEST(KeyringsInsideASession, AreRefusedWithEperm)
{
    EXPECT_EQ(at(worker_real(), "keyctl"), "ok") << "positive control: its own process keyring";
    EXPECT_EQ(at(worker_real(), "add_key"), "ok") << "positive control";
    EXPECT_EQ(at(worker_real(), "request_key"), "ENOKEY") << "positive control: the kernel looked the key up";
    EXPECT_EQ(at(inside_real(), "keyctl"), "EPERM");
    EXPECT_EQ(at(inside_real(), "add_key"), "EPERM");
    EXPECT_EQ(at(inside_real(), "request_key"), "EPERM");
}

TEST(PtraceOfItsOwnChildInsideASession, IsRefusedWithEperm)
{
    EXPECT_EQ(at(worker_real(), "ptrace"), "ok") << "positive control: PTRACE_ATTACH to its own child";
    EXPECT_EQ(at(inside_real(), "ptrace"), "EPERM");
}

TEST(ReadingOrWritingTheMemoryOfItsOwnChildInsideASession, IsRefusedWithEperm)
{
    EXPECT_EQ(at(worker_real(), "process_vm_readv"), "ok") << "positive control";
    EXPECT_EQ(at(worker_real(), "process_vm_writev"), "ok") << "positive control";
    EXPECT_EQ(at(inside_real(), "process_vm_readv"), "EPERM");
    EXPECT_EQ(at(inside_real(), "process_vm_writev"), "EPERM");
}

TEST(PerfEventOpenInsideASession, IsRefusedWithEperm)
{
    // A user-space-only task clock on itself: allowed to any user at
    // perf_event_paranoid 2, but Debian's kernels add level 3 (the default
    // there), where the worker is refused too, with EACCES. So the control
    // for a real call is root's, and the worker's own call never ends in
    // the filter's EPERM outside.
    EXPECT_EQ(at(root_real(), "perf_event_open"), "ok") << "positive control: root opens the counter";
    const auto worker = at(worker_real(), "perf_event_open");
    EXPECT_TRUE(worker == "ok" || worker == "EACCES") << "outside, the kernel decides: " << worker;
    EXPECT_EQ(at(inside_real(), "perf_event_open"), "EPERM");
}

TEST(BpfInsideASession, IsRefusedWithEperm)
{
    // The worker cannot create a map outside either
    // (kernel.unprivileged_bpf_disabled), so the control for a real call is
    // root; the invalid call reaches the kernel for the worker too.
    EXPECT_EQ(at(root_real(), "bpf"), "ok") << "positive control: root creates an array map";
    EXPECT_EQ(at(worker_invalid(), "bpf"), "EFAULT") << "positive control";
    EXPECT_EQ(at(inside_real(), "bpf"), "EPERM");
    EXPECT_EQ(at(inside_invalid(), "bpf"), "EPERM");
}

TEST(UserfaultfdInsideASession, IsRefusedWithEperm)
{
    // UFFD_USER_MODE_ONLY needs no privilege even with
    // vm.unprivileged_userfaultfd = 0.
    EXPECT_EQ(at(worker_real(), "userfaultfd"), "ok") << "positive control";
    EXPECT_EQ(at(inside_real(), "userfaultfd"), "EPERM");
}

TEST(TheNewMountApiInsideASession, IsRefusedWithEperm)
{
    EXPECT_EQ(at(worker_real(), "open_tree"), "ok") << "positive control: open_tree without OPEN_TREE_CLONE";
    EXPECT_EQ(at(root_real(), "fsopen"), "ok") << "positive control";
    EXPECT_EQ(at(root_real(), "fspick"), "ok") << "positive control";
    for (const char* name : {"open_tree", "fsopen", "fspick"}) {
        EXPECT_EQ(at(inside_real(), name), "EPERM") << name;
    }
    for (const char* name : {"open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr"}) {
        EXPECT_EQ(at(inside_invalid(), name), "EPERM") << name;
    }
}

TEST(Clone3InsideASession, LooksUnimplementedWhileThreadsAndChildProcessesStillWork)
{
    EXPECT_EQ(at(worker_real(), "clone3"), "ok") << "positive control";
    EXPECT_EQ(at(inside_real(), "clone3"), "ENOSYS");
    // glibc tries clone3 first and falls back to clone(2) on ENOSYS only.
    EXPECT_EQ(at(inside_real(), "thread"), "ok");
    EXPECT_EQ(at(inside_real(), "spawn"), "ok");
}

TEST(TiocstiInsideASession, IsRefusedWithEpermEvenWithHighBitsInTheRequest)
{
    // On the probe's own controlling pty. With dev.tty.legacy_tiocsti = 0
    // the kernel itself refuses an unprivileged TIOCSTI with EIO; the
    // filter's EPERM is distinct from that either way.
    std::ifstream sysctl("/proc/sys/dev/tty/legacy_tiocsti");
    std::string legacy = "1";
    sysctl >> legacy;
    const std::string control = legacy == "0" ? "EIO" : "ok";
    EXPECT_EQ(at(worker_real(), "tiocsti"), control) << "positive control";
    EXPECT_EQ(at(worker_real(), "tiocsti-high"), control) << "positive control: the kernel ignores the high bits";
    EXPECT_EQ(at(inside_real(), "tiocsti"), "EPERM");
    EXPECT_EQ(at(inside_real(), "tiocsti-high"), "EPERM");
    EXPECT_EQ(at(inside_invalid(), "ioctl-tiocsti"), "EPERM");
    EXPECT_EQ(at(inside_invalid(), "ioctl-tiocsti-high"), "EPERM");
    // Other requests on the same terminal still work.
    EXPECT_EQ(at(inside_real(), "tiocgwinsz"), "ok");
    EXPECT_EQ(at(inside_invalid(), "ioctl-tiocgwinsz"), "EBADF");
}

TEST(TioclinuxInsideASession, IsRefusedWithEpermEvenWithHighBitsInTheRequest)
{
    // A pty is not a virtual console, so the kernel's own answer is ENOTTY;
    // no virtual console is visible inside a session to try a real one.
    EXPECT_EQ(at(worker_real(), "tioclinux"), "ENOTTY") << "positive control";
    EXPECT_EQ(at(worker_real(), "tioclinux-high"), "ENOTTY") << "positive control";
    EXPECT_EQ(at(inside_real(), "tioclinux"), "EPERM");
    EXPECT_EQ(at(inside_real(), "tioclinux-high"), "EPERM");
    EXPECT_EQ(at(inside_invalid(), "ioctl-tioclinux"), "EPERM");
    EXPECT_EQ(at(inside_invalid(), "ioctl-tioclinux-high"), "EPERM");
}

TEST(AnX32SyscallInsideASession, KillsTheCallingProcessWithSigsys)
{
    // This kernel is built without the x32 ABI, so outside the call fails
    // with ENOSYS; inside, the filter kills before the kernel gets to it.
    EXPECT_EQ(at(worker_real(), "x32-getpid"), "ENOSYS") << "positive control";
    EXPECT_EQ(at(inside_real(), "x32-getpid"), "SIGSYS");
}

TEST(AProfileWithNestedUserns, MayCreateUserAndMountNamespacesButNothingElseIsRelaxed)
{
    // What a nested bwrap needs.
    EXPECT_EQ(at(nested_real(), "unshare-user"), "ok");
    EXPECT_EQ(at(nested_real(), "clone-newuser"), "ok");
    EXPECT_EQ(at(nested_real(), "userns-mount"), "ok");
    // mount, pivot_root, setns and the mount API reach the kernel, which
    // still refuses them outside a user namespace of the session's own.
    EXPECT_EQ(at(nested_real(), "mount"), "EPERM");
    for (const char* name : {"mount", "umount2", "unshare", "setns", "open_tree", "fsconfig", "mount_setattr"}) {
        EXPECT_EQ(at(nested_invalid(), name), at(worker_invalid(), name)) << name << ": the kernel's own answer";
    }
    // Everything else stays refused.
    for (const char* name : {"keyctl", "add_key", "ptrace", "process_vm_readv", "perf_event_open", "bpf", "userfaultfd",
                             "tiocsti", "tiocsti-high"}) {
        EXPECT_EQ(at(nested_real(), name), "EPERM") << name;
    }
    EXPECT_EQ(at(nested_real(), "clone3"), "ENOSYS");
    EXPECT_EQ(at(nested_real(), "x32-getpid"), "SIGSYS");
    EXPECT_EQ(at(nested_real(), "personality"), "EPERM");
    EXPECT_EQ(at(nested_real(), "sched-fifo"), "EPERM");
    for (const char* name : {"syslog", "adjtimex", "clock_settime", "settimeofday"}) {
        EXPECT_EQ(at(nested_invalid(), name), "EPERM") << name;
    }
}

// LockPersonality= left the unit (docs/security-model.md, "One cacheable
// filter stack"); the launcher's program keeps its promise.
TEST(APersonalityChangeInsideASession, IsRefusedWithEpermWhileTheQueryStillWorks)
{
    EXPECT_EQ(at(worker_real(), "personality"), "ok") << "positive control: the worker may set READ_IMPLIES_EXEC";
    EXPECT_EQ(at(inside_real(), "personality"), "EPERM");
    EXPECT_EQ(at(inside_real(), "personality-query"), "ok");
}

// RestrictRealtime= left the unit: LimitRTPRIO=0 and the empty bounding set
// (no CAP_SYS_NICE, no CAP_SYS_RESOURCE to raise the limit) refuse it.
// No positive control for SCHED_FIFO itself is possible in this harness:
// the kernel has RT group scheduling and the private systemd's cgroups (v1)
// get no realtime runtime, so root is refused too, and root has no
// CAP_SYS_RESOURCE on this machine kind. What the test pins is the
// mechanism: the limit the session runs with and that it cannot raise it.
TEST(RealtimeSchedulingInsideASession, IsRefusedBecauseTheRtprioLimitIsZeroAndCannotBeRaised)
{
    EXPECT_NE(at(worker_real(), "rtprio-limits"), "(no result)") << "the probe reads the limit outside too";
    EXPECT_EQ(at(inside_real(), "rtprio-limits"), "0/0");
    EXPECT_EQ(at(inside_real(), "raise-rtprio"), "EPERM");
    EXPECT_EQ(at(inside_real(), "sched-fifo"), "EPERM");
}

// ProtectKernelLogs= and ProtectClock= left the unit: their calls are the
// launcher's program's (also in EveryDeniedSyscall, with root as control).
TEST(TheKernelLogAndClockSettingInsideASession, AreRefusedWithEpermBeforeTheKernelReadsAnArgument)
{
    for (const char* name : {"syslog", "adjtimex", "clock_adjtime", "clock_settime", "settimeofday"}) {
        EXPECT_NE(at(root_invalid(), name), "EPERM") << "positive control for " << name;
        EXPECT_EQ(at(inside_invalid(), name), "EPERM") << name;
    }
}

// The session unit's own SystemCallFilter= (core/plan/unit_syscalls.h): the
// launcher's program names none of these three (TheSeccompPolicy.*), so the
// EPERM inside comes from systemd's filter, installed before the launcher
// ran. Root outside gets the kernel's answer to the invalid argument.
TEST(TheSyscallsOnlyTheSessionUnitDenies, AreRefusedInsideWithEpermBeforeTheKernelReadsAnArgument)
{
    for (const char* name : {"pidfd_getfd", "modify_ldt", "ustat"}) {
        EXPECT_NE(at(root_invalid(), name), "EPERM") << "positive control for " << name;
        EXPECT_NE(at(root_invalid(), name), "ENOSYS") << "the kernel has " << name;
        EXPECT_EQ(at(inside_invalid(), name), "EPERM") << name;
    }
}

// RestrictAddressFamilies= on the session unit: AF_UNIX, AF_INET, AF_INET6
// and AF_NETLINK only. systemd's filter answers EAFNOSUPPORT.
TEST(ASocketOfAFamilyTheSessionUnitDoesNotAllow, IsRefusedInsideWhileTheWorkerCreatesOneOutside)
{
    EXPECT_EQ(at(worker_real(), "socket-vsock"), "ok") << "positive control: an AF_VSOCK socket outside";
    EXPECT_EQ(at(inside_real(), "socket-vsock"), "EAFNOSUPPORT");
}
