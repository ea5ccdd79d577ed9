#include "core/seccomp_rules.h"

#include <sys/ioctl.h>

#include <array>
#include <cerrno>
#include <string_view>

namespace nr::core {

namespace {

// Serving connections from inside a session would let model-controlled code
// expose the workspace to anything that can reach the host; outbound
// connections stay available.
constexpr std::array<std::string_view, 3> kStreamListeners{"listen", "accept", "accept4"};

// io_uring bypasses per-syscall filtering of the operations it performs.
constexpr std::array<std::string_view, 3> kIoUring{"io_uring_setup", "io_uring_enter", "io_uring_register"};

// Kernel interfaces an agent has no business with and that widen the attack
// surface on the kernel: keyrings, tracing and reading the memory of other
// processes, performance counters, BPF, userfaultfd (a classic exploitation
// aid), kexec and kernel modules. Without capabilities the kernel already
// refuses some (kexec, modules, privileged BPF) but allows others to any
// process (ptrace and process_vm_* on its own children, its own keyrings,
// user-space perf counters, user-mode userfaultfd); seccomp refuses all of
// them before the kernel looks at a single argument.
constexpr std::array<std::string_view, 14> kPrivileged{
    "keyctl",          "add_key",      "request_key", "ptrace",     "process_vm_readv", "process_vm_writev",
    "perf_event_open", "bpf",          "userfaultfd", "kexec_load", "kexec_file_load",  "init_module",
    "finit_module",    "delete_module"};

// Namespaces and mounts, old and new mount API. Refused unless the adapter
// nests its own sandbox (nested_userns: true): a nested bwrap needs these
// (unshare, mount, pivot_root, umount2) inside the user namespace it creates.
constexpr std::array<std::string_view, 12> kNamespacesAndMounts{"mount",    "umount2",   "pivot_root", "unshare",
                                                                "setns",    "open_tree", "move_mount", "fsopen",
                                                                "fsconfig", "fsmount",   "fspick",     "mount_setattr"};

// ioctl requests that push input into a terminal (TIOCSTI) or drive the
// virtual console (TIOCLINUX, e.g. its selection and paste): either can make
// a process outside the session run what the session typed.
constexpr std::array<unsigned long, 2> kTerminalInjection{TIOCSTI, TIOCLINUX};

} // namespace

SeccompPolicy seccomp_policy_for(const AdapterProfile& adapter)
{
    SeccompPolicy policy;
    auto deny = [&policy](const auto& names, int errno_value) {
        for (const auto name : names) {
            policy.denied.push_back({std::string(name), errno_value, std::nullopt});
        }
    };
    deny(kStreamListeners, EPERM);
    deny(kIoUring, EPERM);
    deny(kPrivileged, EPERM);
    if (!adapter.nested_userns) {
        deny(kNamespacesAndMounts, EPERM);
    }
    // ENOSYS, not EPERM: clone3 passes its flags in memory, where seccomp
    // cannot inspect them, and libc falls back to clone(2) on ENOSYS only.
    policy.denied.push_back({"clone3", ENOSYS, std::nullopt});
    for (const auto request : kTerminalInjection) {
        policy.denied.push_back({"ioctl", EPERM, ArgumentMatch{1, kLow32Bits, request}});
    }
    return policy;
}

} // namespace nr::core
