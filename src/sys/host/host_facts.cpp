// SPDX-License-Identifier: Apache-2.0
#include "sys/host/host_facts.h"

#include "core/plan/unit_syscalls.h"
#include "sys/seccomp/seccomp_filter.h"

#include <array>
#include <climits>
#include <unistd.h>

namespace nr::sys {

std::vector<core::RootSymlink> observe_root_symlinks()
{
    constexpr std::array<const char*, 6> kCandidates{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};
    std::vector<core::RootSymlink> links;
    for (const char* path : kCandidates) {
        std::array<char, PATH_MAX> target{};
        const auto len = readlink(path, target.data(), target.size() - 1);
        if (len <= 0) {
            continue;
        }
        const std::string value(target.data(), static_cast<std::size_t>(len));
        // Only relative links into usr/ are mirrored; anything else is a host
        // oddity the operator should grant explicitly.
        if (value.starts_with("usr/") && value.find("..") == std::string::npos) {
            links.push_back({path, value});
        }
    }
    return links;
}

std::vector<std::string> unknown_unit_syscalls()
{
    // The library and the architecture do not change while the helper runs.
    static const auto unknown = [] {
        std::vector<std::string> names;
        for (const auto& name : core::unit_denied_syscall_candidates()) {
            if (!syscall_name_is_known(name)) {
                names.push_back(name);
            }
        }
        return names;
    }();
    return unknown;
}

core::HostFacts observe_host(const std::string& launcher_path, core::SpecDelivery delivery)
{
    return core::HostFacts{launcher_path, observe_root_symlinks(), unknown_unit_syscalls(), delivery};
}

} // namespace nr::sys
