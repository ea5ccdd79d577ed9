// SPDX-License-Identifier: Apache-2.0
#include "attempts.h"

#include <asm/unistd.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>

namespace nr::probe {

namespace {

std::string errno_symbol(int err)
{
    const char* name = strerrorname_np(err);
    return name != nullptr ? name : "errno" + std::to_string(err);
}

// "ok" for a non-negative return, else the errno name; call right after the
// syscall, before anything else can change errno.
std::string result_of(long rc)
{
    return rc >= 0 ? "ok" : errno_symbol(errno);
}

using Attempt = std::string (*)();

// Runs `attempt` in a forked child so that whatever it changes (a namespace,
// a tracer, a keyring, a controlling terminal) cannot affect the next one,
// and so that a kill by the filter shows as the signal's name.
std::string in_child(Attempt attempt)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        return "pipe:" + errno_symbol(errno);
    }
    const pid_t pid = fork();
    if (pid < 0) {
        return "fork:" + errno_symbol(errno);
    }
    if (pid == 0) {
        close(fds[0]);
        const auto result = attempt();
        const auto written = write(fds[1], result.data(), result.size());
        _exit(written == static_cast<ssize_t>(result.size()) ? 0 : 1);
    }
    close(fds[1]);
    std::string result;
    char buffer[256];
    ssize_t n = 0;
    while ((n = read(fds[0], buffer, sizeof buffer)) > 0) {
        result.append(buffer, static_cast<std::size_t>(n));
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) {
        const char* abbrev = sigabbrev_np(WTERMSIG(status));
        return abbrev != nullptr ? std::string("SIG") + abbrev : "signal" + std::to_string(WTERMSIG(status));
    }
    return result.empty() ? "no-result" : result;
}

pid_t paused_child()
{
    const pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    return child;
}

// Kills and reaps a helper child of an attempt.
void end_child(pid_t child)
{
    kill(child, SIGKILL);
    int status = 0;
    while (waitpid(child, &status, __WALL) == child && !WIFEXITED(status) && !WIFSIGNALED(status)) {
    }
}

std::string try_mount()
{
    char dir[] = "/tmp/nr-probe-mount.XXXXXX";
    if (mkdtemp(dir) == nullptr) {
        return "mkdtemp:" + errno_symbol(errno);
    }
    const int rc = mount("nr-probe", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k");
    const auto result = result_of(rc);
    if (rc == 0) {
        umount2(dir, MNT_DETACH);
    }
    rmdir(dir);
    return result;
}

std::string try_unshare_user()
{
    return result_of(unshare(CLONE_NEWUSER));
}

std::string try_unshare_mount()
{
    return result_of(unshare(CLONE_NEWNS));
}

// Result of a raw clone-style call: the child exits at once, the parent
// reaps it and reports whether the call made a child.
std::string child_created(long pid)
{
    if (pid == 0) {
        _exit(0);
    }
    const auto result = result_of(pid);
    if (pid > 0) {
        waitpid(static_cast<pid_t>(pid), nullptr, 0);
    }
    return result;
}

// The other way to a new user namespace. clone3 is ENOSYS in a session, so
// clone(2) is what a nested sandbox uses.
std::string try_clone_newuser()
{
    const long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
    return child_created(pid);
}

// What a nested bwrap does first: a user and a mount namespace, then a mount.
std::string try_userns_mount()
{
    char dir[] = "/tmp/nr-probe-userns.XXXXXX";
    if (mkdtemp(dir) == nullptr) {
        return "mkdtemp:" + errno_symbol(errno);
    }
    std::string result;
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
        result = errno_symbol(errno);
    } else {
        const int rc = mount("nr-probe", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k");
        result = result_of(rc);
        if (rc == 0) {
            umount2(dir, MNT_DETACH);
        }
    }
    rmdir(dir);
    return result;
}

// Into the mount namespace it is already in.
std::string try_setns()
{
    const int fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return "open:" + errno_symbol(errno);
    }
    return result_of(setns(fd, CLONE_NEWNS));
}

std::string try_keyctl()
{
    return result_of(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING, 1));
}

std::string try_add_key()
{
    return result_of(syscall(SYS_add_key, "user", "nr-probe", "x", 1, KEY_SPEC_PROCESS_KEYRING));
}

// No such key and no callout: the kernel's own answer is ENOKEY.
std::string try_request_key()
{
    return result_of(syscall(SYS_request_key, "user", "nr-probe-absent", nullptr, KEY_SPEC_PROCESS_KEYRING));
}

std::string try_ptrace()
{
    const pid_t child = paused_child();
    const auto result = result_of(ptrace(PTRACE_ATTACH, child, nullptr, nullptr));
    end_child(child);
    return result;
}

volatile long g_marker = 0x6e722d70726f6265L; // read and written by process_vm_* in a forked copy

std::string try_process_vm(bool write_it)
{
    const pid_t child = paused_child();
    long value = write_it ? 1 : 0;
    iovec local{&value, sizeof value};
    iovec remote{const_cast<long*>(&g_marker), sizeof value}; // NOLINT(cppcoreguidelines-pro-type-const-cast)
    const long rc = write_it ? process_vm_writev(child, &local, 1, &remote, 1, 0)
                             : process_vm_readv(child, &local, 1, &remote, 1, 0);
    auto result = result_of(rc);
    if (rc >= 0 && !write_it && value != g_marker) {
        result = "wrong-value";
    }
    end_child(child);
    return result;
}

std::string try_process_vm_readv()
{
    return try_process_vm(false);
}

std::string try_process_vm_writev()
{
    return try_process_vm(true);
}

// A user-space-only software counter on itself: what perf_event_paranoid 2
// still allows an unprivileged process.
std::string try_perf_event_open()
{
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    return result_of(syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

std::string try_bpf()
{
    bpf_attr attr{};
    attr.map_type = BPF_MAP_TYPE_ARRAY;
    attr.key_size = 4;
    attr.value_size = 4;
    attr.max_entries = 1;
    return result_of(syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof attr));
}

// User-mode-only userfaultfd needs no privilege even with
// vm.unprivileged_userfaultfd = 0.
std::string try_userfaultfd()
{
    return result_of(syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY));
}

std::string try_open_tree()
{
    return result_of(syscall(SYS_open_tree, AT_FDCWD, "/tmp", OPEN_TREE_CLOEXEC));
}

std::string try_fsopen()
{
    return result_of(syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC));
}

std::string try_fspick()
{
    return result_of(syscall(SYS_fspick, AT_FDCWD, "/", FSPICK_CLOEXEC)); // "/" is always the root of a mount
}

// struct clone_args up to CLONE_ARGS_SIZE_VER0 (kernel 5.3).
struct CloneArgs {
    std::uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

std::string try_clone3()
{
    CloneArgs args{};
    args.exit_signal = SIGCHLD;
    const long pid = syscall(SYS_clone3, &args, sizeof args);
    return child_created(pid);
}

// glibc creates threads with clone3 and falls back to clone on ENOSYS only.
std::string try_thread()
{
    pthread_t thread{};
    const int rc = pthread_create(
        &thread, nullptr, [](void*) -> void* { return nullptr; }, nullptr);
    if (rc != 0) {
        return errno_symbol(rc);
    }
    pthread_join(thread, nullptr);
    return "ok";
}

std::string try_spawn()
{
    pid_t pid = 0;
    char arg0[] = "true";
    char* const argv[] = {arg0, nullptr};
    const int rc = posix_spawn(&pid, "/usr/bin/true", nullptr, nullptr, argv, nullptr);
    if (rc != 0) {
        return errno_symbol(rc);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ok" : "exit-status";
}

// A fresh pty that is this (child) process's controlling terminal, as the
// kernel requires for TIOCSTI from an unprivileged caller; -1 on failure.
int controlling_pty()
{
    if (setsid() < 0) {
        return -1;
    }
    const int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
        return -1;
    }
    const char* name = ptsname(master);
    const int tty = name != nullptr ? open(name, O_RDWR | O_CLOEXEC) : -1;
    if (tty < 0 || ioctl(tty, TIOCSCTTY, 0) != 0) {
        return -1;
    }
    return tty; // the master stays open with the process, so the pty lives
}

constexpr unsigned long kHighBits = 1UL << 32U;

// Through syscall(2) so that the 64-bit request value is exactly what the
// filter sees; the kernel itself only uses its low 32 bits.
std::string pty_ioctl(unsigned long request, bool high_bits)
{
    const int tty = controlling_pty();
    if (tty < 0) {
        return "pty:" + errno_symbol(errno);
    }
    char arg = request == TIOCLINUX ? 6 : 'x'; // TIOCL_GETSHIFTSTATE; one harmless byte for TIOCSTI
    return result_of(syscall(SYS_ioctl, tty, high_bits ? request | kHighBits : request, &arg));
}

std::string try_tiocsti()
{
    return pty_ioctl(TIOCSTI, false);
}

std::string try_tiocsti_high()
{
    return pty_ioctl(TIOCSTI, true);
}

std::string try_tioclinux()
{
    return pty_ioctl(TIOCLINUX, false);
}

std::string try_tioclinux_high()
{
    return pty_ioctl(TIOCLINUX, true);
}

// An ioctl the filter does not name, on the same kind of terminal.
std::string try_tiocgwinsz()
{
    const int tty = controlling_pty();
    if (tty < 0) {
        return "pty:" + errno_symbol(errno);
    }
    winsize size{};
    return result_of(ioctl(tty, TIOCGWINSZ, &size));
}

// getpid through the x32 ABI (the syscall number with bit 30 set), made
// from this native binary. A kernel without CONFIG_X86_X32_ABI answers ENOSYS.
std::string try_x32_getpid()
{
    const long rc = syscall(__NR_getpid | __X32_SYSCALL_BIT);
    if (rc < 0) {
        return errno_symbol(errno);
    }
    return rc == getpid() ? "ok" : "wrong-pid";
}

// personality(2): a change of flags (READ_IMPLIES_EXEC: every readable
// mapping executable) and the query, which must keep working.
std::string try_personality()
{
    return result_of(syscall(SYS_personality, static_cast<unsigned long>(READ_IMPLIES_EXEC)));
}

std::string try_personality_query()
{
    return result_of(syscall(SYS_personality, 0xffffffffUL));
}

// Realtime scheduling for this child: the kernel refuses it without
// CAP_SYS_NICE unless RLIMIT_RTPRIO allows the priority.
std::string try_sched_fifo()
{
    sched_param param{};
    param.sched_priority = 1;
    return result_of(sched_setscheduler(0, SCHED_FIFO, &param));
}

// Raising RLIMIT_RTPRIO's hard limit needs CAP_SYS_RESOURCE.
std::string try_raise_rtprio()
{
    const rlimit wanted{1, 1};
    return result_of(setrlimit(RLIMIT_RTPRIO, &wanted));
}

std::string rtprio_limits()
{
    rlimit current{};
    if (getrlimit(RLIMIT_RTPRIO, &current) != 0) {
        return errno_symbol(errno);
    }
    return std::to_string(current.rlim_cur) + "/" + std::to_string(current.rlim_max);
}

// A socket of a family the session unit does not allow (AF_VSOCK needs no
// privilege and no peer to be created).
std::string try_socket_vsock()
{
    const int fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const auto result = result_of(fd);
    if (fd >= 0) {
        close(fd);
    }
    return result;
}

struct NamedAttempt {
    const char* name;
    Attempt attempt;
};

const NamedAttempt kRealAttempts[] = {
    {"mount", try_mount},
    {"socket-vsock", try_socket_vsock},
    {"unshare-user", try_unshare_user},
    {"unshare-mount", try_unshare_mount},
    {"clone-newuser", try_clone_newuser},
    {"userns-mount", try_userns_mount},
    {"setns", try_setns},
    {"keyctl", try_keyctl},
    {"add_key", try_add_key},
    {"request_key", try_request_key},
    {"ptrace", try_ptrace},
    {"process_vm_readv", try_process_vm_readv},
    {"process_vm_writev", try_process_vm_writev},
    {"perf_event_open", try_perf_event_open},
    {"bpf", try_bpf},
    {"userfaultfd", try_userfaultfd},
    {"open_tree", try_open_tree},
    {"fsopen", try_fsopen},
    {"fspick", try_fspick},
    {"clone3", try_clone3},
    {"thread", try_thread},
    {"spawn", try_spawn},
    {"tiocsti", try_tiocsti},
    {"tiocsti-high", try_tiocsti_high},
    {"tioclinux", try_tioclinux},
    {"tioclinux-high", try_tioclinux_high},
    {"tiocgwinsz", try_tiocgwinsz},
    {"x32-getpid", try_x32_getpid},
    {"personality", try_personality},
    {"personality-query", try_personality_query},
    {"sched-fifo", try_sched_fifo},
    {"raise-rtprio", try_raise_rtprio},
    {"rtprio-limits", rtprio_limits},
};

// An address no process has mapped: the kernel answers EFAULT when it
// copies from it.
const char* const kBadPointer = reinterpret_cast<const char*>(1); // NOLINT(performance-no-int-to-ptr)
constexpr unsigned long kAllFlags = ~0UL;

const NamedAttempt kInvalidAttempts[] = {
    {"mount", [] { return result_of(syscall(SYS_mount, "none", "/tmp", kBadPointer, 0UL, nullptr)); }},
    {"umount2", [] { return result_of(syscall(SYS_umount2, "/tmp", kAllFlags)); }},
    {"pivot_root", [] { return result_of(syscall(SYS_pivot_root, kBadPointer, kBadPointer)); }},
    {"unshare", [] { return result_of(syscall(SYS_unshare, 1UL)); }}, // a CSIGNAL bit: never valid
    {"setns", [] { return result_of(syscall(SYS_setns, -1, 0)); }},
    {"open_tree", [] { return result_of(syscall(SYS_open_tree, -1, kBadPointer, kAllFlags)); }},
    {"move_mount", [] { return result_of(syscall(SYS_move_mount, -1, kBadPointer, -1, kBadPointer, kAllFlags)); }},
    {"fsopen", [] { return result_of(syscall(SYS_fsopen, kBadPointer, kAllFlags)); }},
    {"fsconfig", [] { return result_of(syscall(SYS_fsconfig, -1, kAllFlags, nullptr, nullptr, 0)); }},
    {"fsmount", [] { return result_of(syscall(SYS_fsmount, -1, kAllFlags, kAllFlags)); }},
    {"fspick", [] { return result_of(syscall(SYS_fspick, -1, kBadPointer, kAllFlags)); }},
    {"mount_setattr", [] { return result_of(syscall(SYS_mount_setattr, -1, kBadPointer, kAllFlags, nullptr, 0)); }},
    {"keyctl", [] { return result_of(syscall(SYS_keyctl, 0x7fffffffL)); }},
    {"add_key", [] { return result_of(syscall(SYS_add_key, kBadPointer, kBadPointer, nullptr, 0, 0)); }},
    {"request_key", [] { return result_of(syscall(SYS_request_key, kBadPointer, kBadPointer, nullptr, 0)); }},
    {"ptrace", [] { return result_of(syscall(SYS_ptrace, PTRACE_GETREGS, -1, nullptr, nullptr)); }},
    {"process_vm_readv", [] { return result_of(syscall(SYS_process_vm_readv, 0, nullptr, 0, nullptr, 0, kAllFlags)); }},
    {"process_vm_writev",
     [] { return result_of(syscall(SYS_process_vm_writev, 0, nullptr, 0, nullptr, 0, kAllFlags)); }},
    {"perf_event_open", [] { return result_of(syscall(SYS_perf_event_open, nullptr, 0, -1, -1, kAllFlags)); }},
    {"bpf", [] { return result_of(syscall(SYS_bpf, BPF_MAP_CREATE, kBadPointer, 8)); }},
    {"userfaultfd", [] { return result_of(syscall(SYS_userfaultfd, -1)); }},
    {"kexec_load", [] { return result_of(syscall(SYS_kexec_load, 0, 0, nullptr, kAllFlags)); }},
    {"kexec_file_load", [] { return result_of(syscall(SYS_kexec_file_load, -1, -1, 0, nullptr, kAllFlags)); }},
    {"init_module", [] { return result_of(syscall(SYS_init_module, nullptr, 0, nullptr)); }},
    {"finit_module", [] { return result_of(syscall(SYS_finit_module, -1, kBadPointer, kAllFlags)); }},
    {"delete_module", [] { return result_of(syscall(SYS_delete_module, kBadPointer, 0)); }},
    {"clone3", [] { return result_of(syscall(SYS_clone3, nullptr, 0)); }},
    {"syslog", [] { return result_of(syscall(SYS_syslog, 0x7fffffff, nullptr, 0)); }}, // no such action: EINVAL
    {"adjtimex", [] { return result_of(syscall(SYS_adjtimex, kBadPointer)); }},
    {"clock_adjtime", [] { return result_of(syscall(SYS_clock_adjtime, CLOCK_REALTIME, kBadPointer)); }},
    {"clock_settime", [] { return result_of(syscall(SYS_clock_settime, CLOCK_REALTIME, kBadPointer)); }},
    {"settimeofday", [] { return result_of(syscall(SYS_settimeofday, kBadPointer, nullptr)); }},
    // Denied by the session unit's SystemCallFilter= only, not by the
    // launcher's program: no descriptor, a write of 0 bytes, no device 0.
    {"pidfd_getfd", [] { return result_of(syscall(SYS_pidfd_getfd, -1, -1, 0)); }},
    {"modify_ldt", [] { return result_of(syscall(SYS_modify_ldt, 1, nullptr, 0UL)); }},
    {"ustat", [] { return result_of(syscall(SYS_ustat, 0U, kBadPointer)); }},
    {"listen", [] { return result_of(syscall(SYS_listen, -1, 0)); }},
    {"accept", [] { return result_of(syscall(SYS_accept, -1, nullptr, nullptr)); }},
    {"accept4", [] { return result_of(syscall(SYS_accept4, -1, nullptr, nullptr, 0)); }},
    {"io_uring_setup", [] { return result_of(syscall(SYS_io_uring_setup, 0, nullptr)); }},
    {"io_uring_enter", [] { return result_of(syscall(SYS_io_uring_enter, -1, 0, 0, 0, nullptr, 0)); }},
    {"io_uring_register", [] { return result_of(syscall(SYS_io_uring_register, -1, 0, nullptr, 0)); }},
    {"ioctl-tiocsti", [] { return result_of(syscall(SYS_ioctl, -1, TIOCSTI, nullptr)); }},
    {"ioctl-tiocsti-high", [] { return result_of(syscall(SYS_ioctl, -1, TIOCSTI | kHighBits, nullptr)); }},
    {"ioctl-tioclinux", [] { return result_of(syscall(SYS_ioctl, -1, TIOCLINUX, nullptr)); }},
    {"ioctl-tioclinux-high", [] { return result_of(syscall(SYS_ioctl, -1, TIOCLINUX | kHighBits, nullptr)); }},
    {"ioctl-tiocgwinsz", [] { return result_of(syscall(SYS_ioctl, -1, TIOCGWINSZ, nullptr)); }},
};

template <std::size_t N> int run_attempts(const NamedAttempt (&table)[N], const std::vector<std::string>& names)
{
    for (const auto& name : names) {
        const NamedAttempt* found = nullptr;
        for (const auto& entry : table) {
            if (name == entry.name) {
                found = &entry;
            }
        }
        if (found == nullptr) {
            std::cerr << "nr-probe: nothing to try named " << name << '\n';
            return 2;
        }
        std::cout << name << '=' << in_child(found->attempt) << std::endl;
    }
    return 0;
}

} // namespace

int try_real(const std::vector<std::string>& names)
{
    return run_attempts(kRealAttempts, names);
}

int try_invalid(const std::vector<std::string>& names)
{
    return run_attempts(kInvalidAttempts, names);
}

} // namespace nr::probe
