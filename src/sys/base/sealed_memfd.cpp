// SPDX-License-Identifier: Apache-2.0
#include "sys/base/sealed_memfd.h"

#include "core/base/error.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace nr::sys {

namespace {

[[noreturn]] void failed(std::string_view what, const char* step)
{
    core::fail(core::ErrorKind::LaunchFailed, std::string(what) + ": " + step + ": " + std::strerror(errno));
}

[[noreturn]] void refused(std::string_view what, const std::string& why)
{
    core::fail(core::ErrorKind::LaunchFailed, std::string(what) + ": " + why);
}

constexpr int kEverySeal = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;

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

std::string read_sealed_memfd(int fd, uid_t owner, std::size_t max_size, std::string_view what)
{
    // Only a memfd made with sealing allowed answers F_GET_SEALS with more
    // than F_SEAL_SEAL; a pipe, socket or file on disk fails or lacks seals.
    const int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0) {
        failed(what, "not a sealable memfd: F_GET_SEALS");
    }
    if ((seals & kEverySeal) != kEverySeal) {
        refused(what, "the memfd is not sealed against writing, growing and shrinking");
    }
    struct stat st {};
    if (fstat(fd, &st) != 0) {
        failed(what, "fstat");
    }
    if (!S_ISREG(st.st_mode)) {
        refused(what, "not a regular memfd");
    }
    if (st.st_uid != owner) {
        refused(what, "the memfd is owned by uid " + std::to_string(st.st_uid) + ", not " + std::to_string(owner));
    }
    if (st.st_size < 0 || static_cast<std::size_t>(st.st_size) > max_size) {
        refused(what, "the memfd holds " + std::to_string(st.st_size) + " bytes, over " + std::to_string(max_size));
    }
    std::string data(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t done = 0;
    while (done < data.size()) {
        // pread: the offset is shared with whoever else holds the descriptor.
        const auto n = pread(fd, data.data() + done, data.size() - done, static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            failed(what, "read");
        }
        done += static_cast<std::size_t>(n);
    }
    return data;
}

void keep_across_exec(int fd, std::string_view what)
{
    if (fcntl(fd, F_SETFD, 0) != 0) {
        failed(what, "clearing close-on-exec");
    }
}

} // namespace nr::sys
