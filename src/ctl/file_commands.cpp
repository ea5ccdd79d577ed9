// SPDX-License-Identifier: Apache-2.0
#include "ctl/file_commands.h"

#include "core/base/error.h"
#include "ctl/exit_status.h"
#include "sys/bus/helper_proxy.h"
#include "sys/crypto/receipt_store.h"

#include <sdbus-c++/sdbus-c++.h>

#include <grp.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

namespace nr::ctl {

namespace {

using sys::FilesProxy;

// Copies everything readable from fd to stdout; the helper's memfds are
// sealed, so this is the content as the helper read it.
bool copy_to(int fd, std::ostream& out)
{
    std::array<char, 65536> buffer{};
    ::lseek(fd, 0, SEEK_SET);
    for (;;) {
        const auto n = ::read(fd, buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return false;
        }
        if (n == 0) {
            return static_cast<bool>(out.flush());
        }
        out.write(buffer.data(), n);
    }
}

bool copy_to_file(int fd, const std::string& path)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    return out && copy_to(fd, out);
}

// A receipt or edit handle from a file, or stdin for "-".
std::string read_receipt(const std::string& path)
{
    if (path == "-") {
        return {std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::invalid_argument("cannot read the receipt file " + path);
    }
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// What the body throws is mapped by Cli::dispatch() (ctl/exit_status.h).
template <typename Body> int with_files(Body&& body)
{
    auto connection = sdbus::createSystemBusConnection();
    FilesProxy files(*connection);
    return body(files);
}

} // namespace

int file_read(const FileOptions& o)
{
    return with_files([&](FilesProxy& files) {
        const auto [fd, size] = files.OpenForRead(o.owner, o.chat, o.area, o.relpath, o.run_as);
        (void)size;
        return copy_to(fd.get(), std::cout) ? 0 : core::kExitIoError;
    });
}

int file_write(const FileOptions& o)
{
    return with_files([&](FilesProxy& files) {
        files.WriteFile(o.owner, o.chat, o.area, o.relpath, o.run_as, sdbus::UnixFd(STDIN_FILENO));
        return 0;
    });
}

int file_begin_edit(const FileOptions& o)
{
    return with_files([&](FilesProxy& files) {
        std::cout << files.BeginEdit(o.owner, o.chat, o.job, o.relpath, o.run_as);
        return std::cout.flush() ? 0 : core::kExitIoError;
    });
}

int file_record_edit(const FileOptions& o)
{
    return with_files([&](FilesProxy& files) {
        std::cout << files.RecordEdit(o.owner, o.chat, o.job, read_receipt(o.handle), o.run_as);
        return std::cout.flush() ? 0 : core::kExitIoError;
    });
}

int file_diff(const FileOptions& o)
{
    return with_files([&](FilesProxy& files) {
        const auto [before, after] = files.Diff(o.owner, o.chat, o.job, read_receipt(o.receipt), o.run_as);
        const bool copied = copy_to_file(before.get(), o.before_to) && copy_to_file(after.get(), o.after_to);
        return copied ? 0 : core::kExitIoError;
    });
}

int file_revert(const FileOptions& o)
{
    return with_files([&](FilesProxy& files) {
        files.Revert(o.owner, o.chat, o.job, read_receipt(o.receipt), o.run_as);
        return 0;
    });
}

int provision(const ProvisionOptions& o)
{
    const auto* gr = ::getgrnam(o.group.c_str());
    if (gr == nullptr) {
        core::fail(core::ErrorKind::InvalidArgument, "unknown group " + o.group);
    }
    sys::provision_snapshot_dir(o.path, gr->gr_gid);
    return 0;
}

} // namespace nr::ctl
