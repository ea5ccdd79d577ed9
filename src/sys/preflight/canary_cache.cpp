// SPDX-License-Identifier: Apache-2.0
#include "sys/preflight/canary_cache.h"

#include "sys/base/unique_fd.h"
#include "sys/crypto/digest.h"
#include "sys/fs/dropin_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cerrno>

namespace nr::sys {

namespace {

constexpr std::size_t kMaxRecordBytes = std::size_t{64} * 1024;
constexpr const char* kTemporaryName = ".preflight-canary.new";

std::string trimmed(std::string text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
        text.pop_back();
    }
    return text;
}

std::string identity_of(const std::string& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return "absent";
    }
    return "dev=" + std::to_string(st.st_dev) + " ino=" + std::to_string(st.st_ino) +
           " size=" + std::to_string(st.st_size) + " mode=" + std::to_string(st.st_mode) +
           " uid=" + std::to_string(st.st_uid) + " gid=" + std::to_string(st.st_gid) +
           " mtime=" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) +
           " ctime=" + std::to_string(st.st_ctim.tv_sec) + "." + std::to_string(st.st_ctim.tv_nsec);
}

bool trusted(int fd, bool directory)
{
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        return false;
    }
    return directory ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode) && st.st_nlink == 1;
}

UniqueFd open_trusted_dir(const std::string& dir)
{
    UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid() || !trusted(fd.get(), true)) {
        return UniqueFd();
    }
    return fd;
}

} // namespace

core::CanaryInputs observe_canary_inputs(const std::string& config_path, const std::vector<std::string>& binaries,
                                         const std::string& systemd_version)
{
    core::CanaryInputs inputs;
    inputs.boot_id = trimmed(read_text_file("/proc/sys/kernel/random/boot_id").value_or(""));
    struct utsname names {};
    if (::uname(&names) == 0) {
        inputs.kernel = std::string(names.release) + " " + names.version;
    }
    inputs.systemd_version = systemd_version;
    const auto config = read_text_file(config_path);
    inputs.config_digest = config ? sha256_hex(*config) : "unreadable " + config_path;
    for (const auto& path : binaries) {
        inputs.binaries.emplace_back(path, identity_of(path));
    }
    for (const auto* sysctl : {"/proc/sys/user/max_user_namespaces", "/proc/sys/kernel/unprivileged_userns_clone",
                               "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"}) {
        inputs.sysctls.emplace_back(sysctl, trimmed(read_text_file(sysctl).value_or("absent")));
    }
    return inputs;
}

std::string read_canary_cache(const std::string& dir)
{
    const auto dir_fd = open_trusted_dir(dir);
    if (!dir_fd.valid()) {
        return {};
    }
    const UniqueFd fd(::openat(dir_fd.get(), kCanaryCacheName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    if (!fd.valid() || !trusted(fd.get(), false)) {
        return {};
    }
    std::string text;
    std::array<char, 4096> buf{};
    for (;;) {
        const auto got = ::read(fd.get(), buf.data(), buf.size());
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            return {};
        }
        if (got == 0) {
            return text;
        }
        text.append(buf.data(), static_cast<std::size_t>(got));
        if (text.size() > kMaxRecordBytes) {
            return {};
        }
    }
}

bool write_canary_cache(const std::string& record, const std::string& dir)
{
    const auto dir_fd = open_trusted_dir(dir);
    if (!dir_fd.valid()) {
        return false;
    }
    ::unlinkat(dir_fd.get(), kTemporaryName, 0);
    UniqueFd fd(::openat(dir_fd.get(), kTemporaryName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd.valid()) {
        return false;
    }
    std::size_t done = 0;
    while (done < record.size()) {
        const auto wrote = ::write(fd.get(), record.data() + done, record.size() - done);
        if (wrote < 0 && errno == EINTR) {
            continue;
        }
        if (wrote <= 0) {
            ::unlinkat(dir_fd.get(), kTemporaryName, 0);
            return false;
        }
        done += static_cast<std::size_t>(wrote);
    }
    fd.reset();
    if (::renameat(dir_fd.get(), kTemporaryName, dir_fd.get(), kCanaryCacheName) != 0) {
        ::unlinkat(dir_fd.get(), kTemporaryName, 0);
        return false;
    }
    return true;
}

void remove_canary_cache(const std::string& dir)
{
    const auto dir_fd = open_trusted_dir(dir);
    if (dir_fd.valid()) {
        ::unlinkat(dir_fd.get(), kCanaryCacheName, 0);
    }
}

} // namespace nr::sys
