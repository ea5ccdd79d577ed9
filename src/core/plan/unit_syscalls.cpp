// SPDX-License-Identifier: Apache-2.0
#include "core/plan/unit_syscalls.h"

#include <algorithm>
#include <cerrno>

namespace nr::core {

const std::vector<std::string>& unit_denied_syscall_candidates()
{
    static const std::vector<std::string> kNames{
        // @clock
        "adjtimex", "clock_adjtime", "clock_adjtime64", "clock_settime", "clock_settime64", "settimeofday",
        // @cpu-emulation
        "modify_ldt", "subpage_prot", "switch_endian", "vm86", "vm86old",
        // @debug
        "lookup_dcookie", "perf_event_open", "pidfd_getfd", "ptrace", "rtas", "s390_runtime_instr",
        "sys_debug_setcontext",
        // @module
        "delete_module", "finit_module", "init_module",
        // @obsolete
        "_sysctl", "afs_syscall", "bdflush", "break", "create_module", "ftime", "get_kernel_syms", "getpmsg", "gtty",
        "idle", "lock", "mpx", "prof", "profil", "putpmsg", "query_module", "security", "sgetmask", "ssetmask", "stime",
        "stty", "sysfs", "tuxcall", "ulimit", "uselib", "ustat", "vserver",
        // @raw-io
        "ioperm", "iopl", "pciconfig_iobase", "pciconfig_read", "pciconfig_write", "s390_pci_mmio_read",
        "s390_pci_mmio_write",
        // @reboot
        "kexec_file_load", "kexec_load", "reboot",
        // @swap
        "swapoff", "swapon"};
    return kNames;
}

UnitProperties unit_syscall_properties(const std::vector<std::string>& unknown)
{
    NameList denied;
    for (const auto& name : unit_denied_syscall_candidates()) {
        if (std::find(unknown.begin(), unknown.end(), name) == unknown.end()) {
            denied.names.push_back(name);
        }
    }
    return {
        {"SystemCallFilter", denied},
        // The launcher's program answers EPERM too; systemd's default would
        // kill the process, which an agent probing for a call cannot survive.
        {"SystemCallErrorNumber", ErrorNumber{EPERM}},
        {"RestrictAddressFamilies", NameList{true, {"AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"}}},
    };
}

} // namespace nr::core
