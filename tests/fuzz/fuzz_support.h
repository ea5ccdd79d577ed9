// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared by the fuzz harnesses. A broken invariant throws std::logic_error:
// libFuzzer reports the uncaught exception as a crash, and the replay test
// (which calls the same entry points under g++) reports it as a failure.

#include <stdexcept>
#include <string>

namespace nr::fuzz {

inline void require(bool ok, const std::string& what)
{
    if (!ok) {
        throw std::logic_error("fuzz invariant violated: " + what);
    }
}

} // namespace nr::fuzz
