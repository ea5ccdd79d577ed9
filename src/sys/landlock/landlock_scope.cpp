// SPDX-License-Identifier: Apache-2.0
#include "sys/landlock/landlock_scope.h"

#include "core/base/error.h"
#include "core/launch/landlock_abi.h"
#include "sys/base/unique_fd.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

namespace nr::sys {

namespace {

using core::ErrorKind;
using core::fail;

// From linux/landlock.h of Linux 6.12; Debian 12's headers predate scoping.
struct RulesetAttr {
    std::uint64_t handled_access_fs = 0;
    std::uint64_t handled_access_net = 0;
    std::uint64_t scoped = 0;
};
constexpr std::uint64_t kScopeAbstractUnixSocket = 1U << 0U;
constexpr std::uint64_t kScopeSignal = 1U << 1U;
constexpr unsigned kCreateRulesetVersion = 1U << 0U;

} // namespace

long landlock_abi()
{
    const long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
    return abi < 0 ? -errno : abi;
}

void scope_abstract_sockets_and_signals()
{
    const long abi = landlock_abi();
    const auto required = std::to_string(core::kLandlockAbiRequired);
    if (abi < core::kLandlockAbiRequired) {
        fail(ErrorKind::LaunchFailed,
             abi < 0 ? "Landlock is not available (" + std::string(std::strerror(static_cast<int>(-abi))) + "); ABI " +
                           required + " is required to keep sessions away from the host's abstract unix sockets"
                     : "Landlock ABI " + std::to_string(abi) + " found, ABI " + required +
                           " (Linux 6.12) required: it scopes abstract unix sockets and signals");
    }
    RulesetAttr attr;
    attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    UniqueFd ruleset(static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0U)));
    if (!ruleset.valid()) {
        fail(ErrorKind::LaunchFailed, std::string("landlock_create_ruleset: ") + std::strerror(errno));
    }
    if (syscall(SYS_landlock_restrict_self, ruleset.get(), 0U) != 0) {
        fail(ErrorKind::LaunchFailed, std::string("landlock_restrict_self: ") + std::strerror(errno));
    }
}

} // namespace nr::sys
