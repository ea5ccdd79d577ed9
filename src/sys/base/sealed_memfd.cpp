// SPDX-License-Identifier: Apache-2.0
#include "sys/base/sealed_memfd.h"

#include "core/base/error.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace nr::sys {

namespace {

[[noreturn]] void failed(std::string_view what, const char* step)
{
    core::fail(core::ErrorKind::LaunchFailed, std::string(what) + ": " + step + ": " + std::strerror(errno));
}

} // namespace

UniqueFd new_sealable_memfd(const char* name)
{
    UniqueFd fd(memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING));
    if (!fd.valid()) {
        failed(name, "memfd_create");
    }
    return fd;
}

void seal_and_rewind(int fd, std::string_view what)
{
    if (lseek(fd, 0, SEEK_SET) != 0) {
        failed(what, "lseek");
    }
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
        failed(what, "sealing the memfd");
    }
}

UniqueFd sealed_memfd(const char* name, std::string_view data)
{
    auto fd = new_sealable_memfd(name);
    std::size_t written = 0;
    while (written < data.size()) {
        const auto n = write(fd.get(), data.data() + written, data.size() - written);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            failed(name, "write");
        }
        written += static_cast<std::size_t>(n);
    }
    seal_and_rewind(fd.get(), name);
    return fd;
}

void keep_across_exec(int fd, std::string_view what)
{
    if (fcntl(fd, F_SETFD, 0) != 0) {
        failed(what, "clearing close-on-exec");
    }
}

} // namespace nr::sys
