#include "core/seccomp_rules.h"

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

} // namespace

SeccompPolicy seccomp_policy_for(const AdapterProfile& /*adapter*/)
{
    SeccompPolicy policy;
    for (const auto name : kStreamListeners) {
        policy.denied.push_back({std::string(name), EPERM});
    }
    for (const auto name : kIoUring) {
        policy.denied.push_back({std::string(name), EPERM});
    }
    return policy;
}

} // namespace nr::core
