// SPDX-License-Identifier: Apache-2.0
#include "sys/base/exec_setup.h"

#include "core/base/error.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <sys/syscall.h>
#include <unistd.h>

namespace nr::sys {

namespace {

constexpr unsigned kFirstAboveStderr = 3;

void close_range_or_fail(unsigned first, unsigned last)
{
    if (first <= last && ::syscall(SYS_close_range, first, last, 0U) != 0) {
        core::fail(core::ErrorKind::LaunchFailed, std::string("close_range: ") + std::strerror(errno));
    }
}

} // namespace

void close_fds_above_stderr_except(int keep)
{
    if (keep < static_cast<int>(kFirstAboveStderr)) {
        close_range_or_fail(kFirstAboveStderr, UINT_MAX);
        return;
    }
    const auto kept = static_cast<unsigned>(keep);
    close_range_or_fail(kFirstAboveStderr, kept - 1);
    close_range_or_fail(kept + 1, UINT_MAX);
}

std::vector<char*> exec_vector(const std::vector<std::string>& items)
{
    std::vector<char*> out;
    out.reserve(items.size() + 1);
    for (const auto& item : items) {
        out.push_back(const_cast<char*>(item.c_str())); // NOLINT(cppcoreguidelines-pro-type-const-cast): execve ABI
    }
    out.push_back(nullptr);
    return out;
}

} // namespace nr::sys
