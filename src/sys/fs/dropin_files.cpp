// SPDX-License-Identifier: Apache-2.0
#include "sys/fs/dropin_files.h"

#include "sys/base/random_token.h"
#include "sys/base/unique_fd.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <filesystem>
#include <system_error>

namespace nr::sys {

namespace {

constexpr mode_t kFileMode = 0644; // unit files are world-readable anyway
constexpr mode_t kDirMode = 0755;

[[noreturn]] void throw_errno(const std::string& what)
{
    throw std::system_error(errno, std::generic_category(), what);
}

void write_all(int fd, std::string_view data, const std::string& path)
{
    while (!data.empty()) {
        const auto written = ::write(fd, data.data(), data.size());
        if (written < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw_errno(path);
        }
        data.remove_prefix(static_cast<std::size_t>(written));
    }
}

void fsync_directory(const std::string& dir)
{
    const UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid() || ::fsync(fd.get()) != 0) {
        throw_errno(dir);
    }
}

// True when this call created `dir` (its parents may be created as well).
bool ensure_directory(const std::string& dir)
{
    std::error_code ec;
    const auto parent = std::filesystem::path(dir).parent_path();
    std::filesystem::create_directories(parent, ec);
    if (ec) {
        throw std::system_error(ec, parent.string());
    }
    if (::mkdir(dir.c_str(), kDirMode) == 0) {
        fsync_directory(parent.string());
        return true;
    }
    if (errno != EEXIST) {
        throw_errno(dir);
    }
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        throw std::system_error(ENOTDIR, std::generic_category(), dir);
    }
    return false;
}

std::string temp_name(std::string_view name)
{
    constexpr std::size_t kNameBytes = 4;
    // Appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict
    // inside char_traits for the equivalent chain of operator+.
    std::string temp = ".";
    temp.append(name).append(".").append(random_hex(kNameBytes, core::ErrorKind::ConfigInvalid, "a temporary name"));
    return temp.append(".tmp");
}

} // namespace

std::optional<std::string> read_text_file(const std::string& path)
{
    const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (!fd.valid()) {
        if (errno == ENOENT) {
            return std::nullopt;
        }
        throw_errno(path);
    }
    std::string text;
    std::array<char, 4096> buf{};
    for (;;) {
        const auto got = ::read(fd.get(), buf.data(), buf.size());
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw_errno(path);
        }
        if (got == 0) {
            return text;
        }
        text.append(buf.data(), static_cast<std::size_t>(got));
    }
}

WriteOutcome write_file_atomically(const std::string& dir, std::string_view name,
                                   const std::function<std::string(bool created_directory)>& render)
{
    const bool created = ensure_directory(dir);
    const auto path = dir + "/" + std::string(name);
    const auto old_text = read_text_file(path);
    const auto text = render(created);
    if (old_text && *old_text == text) {
        return WriteOutcome::Unchanged;
    }
    const auto temp = dir + "/" + temp_name(name);
    {
        const UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, kFileMode));
        if (!fd.valid()) {
            throw_errno(temp);
        }
        try {
            write_all(fd.get(), text, temp);
            // The umask must not decide whether systemd can read it.
            if (::fchmod(fd.get(), kFileMode) != 0 || ::fsync(fd.get()) != 0) {
                throw_errno(temp);
            }
        } catch (...) {
            ::unlink(temp.c_str());
            throw;
        }
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const int saved = errno;
        ::unlink(temp.c_str());
        throw std::system_error(saved, std::generic_category(), path);
    }
    fsync_directory(dir);
    return old_text ? WriteOutcome::Updated : WriteOutcome::Created;
}

bool remove_file_durably(const std::string& dir, std::string_view name, bool remove_directory)
{
    const auto path = dir + "/" + std::string(name);
    if (::unlink(path.c_str()) != 0) {
        if (errno == ENOENT) {
            return false;
        }
        throw_errno(path);
    }
    fsync_directory(dir);
    if (remove_directory && ::rmdir(dir.c_str()) == 0) {
        fsync_directory(std::filesystem::path(dir).parent_path().string());
    }
    return true;
}

} // namespace nr::sys
