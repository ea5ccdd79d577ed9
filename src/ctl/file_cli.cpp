#include "ctl/file_cli.h"

#include "core/base/error.h"
#include "ctl/arg_checks.h"
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

struct FileOptions {
    std::string owner;
    std::string chat;
    std::string job;
    std::string area = "workspace";
    std::string run_as;
    std::string relpath;
    std::string receipt;
    std::string handle;
    std::string before_to;
    std::string after_to;
};

struct ProvisionOptions {
    std::string group;
    std::string path;
};

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

void add_common(CLI::App& cmd, FileOptions& o, bool with_job)
{
    cmd.add_option("--owner", o.owner, "Owner id")->required()->check(id_check(core::IdKind::Owner));
    cmd.add_option("--chat", o.chat, "Chat id")->required()->check(id_check(core::IdKind::Chat));
    if (with_job) {
        cmd.add_option("--job", o.job, "Job id")->required()->check(id_check(core::IdKind::Job));
    }
    cmd.add_option("--run-as", o.run_as, "User whose file permissions apply (root callers only)");
}

} // namespace

struct FileVerbs {
    FileOptions read;
    FileOptions write;
    FileOptions begin;
    FileOptions record;
    FileOptions diff;
    FileOptions revert;
    ProvisionOptions provision;
    CLI::App* read_cmd = nullptr;
    CLI::App* write_cmd = nullptr;
    CLI::App* begin_cmd = nullptr;
    CLI::App* record_cmd = nullptr;
    CLI::App* diff_cmd = nullptr;
    CLI::App* revert_cmd = nullptr;
    CLI::App* provision_cmd = nullptr;
};

FileVerbsHandle::FileVerbsHandle() : verbs(std::make_unique<FileVerbs>()) {}
FileVerbsHandle::FileVerbsHandle(FileVerbsHandle&&) noexcept = default;
FileVerbsHandle& FileVerbsHandle::operator=(FileVerbsHandle&&) noexcept = default;
FileVerbsHandle::~FileVerbsHandle() = default;

FileVerbsHandle add_file_verbs(CLI::App& app)
{
    FileVerbsHandle handle;
    auto& v = *handle.verbs;
    auto* file = app.add_subcommand("file", "Read or write a file in an owner's tree, or use an edit receipt");
    file->require_subcommand(1);

    v.read_cmd = file->add_subcommand("read", "Print a file of the chat's workspace (or --area home)");
    add_common(*v.read_cmd, v.read, false);
    v.read_cmd->add_option("--area", v.read.area, "workspace or home");
    v.read_cmd->add_option("relpath", v.read.relpath, "Path relative to the area")->required();

    v.write_cmd = file->add_subcommand("write", "Replace a file with standard input");
    add_common(*v.write_cmd, v.write, false);
    v.write_cmd->add_option("--area", v.write.area, "workspace or home");
    v.write_cmd->add_option("relpath", v.write.relpath, "Path relative to the area")->required();

    v.begin_cmd =
        file->add_subcommand("begin-edit", "Before an edit: snapshot the file (or its absence); print a handle");
    add_common(*v.begin_cmd, v.begin, true);
    v.begin_cmd->add_option("relpath", v.begin.relpath, "Path relative to the chat's workspace")->required();

    v.record_cmd = file->add_subcommand("record-edit", "After the edit: consume the handle; print the receipt");
    add_common(*v.record_cmd, v.record, true);
    v.record_cmd->add_option("--handle", v.record.handle, "Handle file from begin-edit (- for stdin)")->required();

    v.diff_cmd = file->add_subcommand("diff", "Write the content before and after a recorded edit to two files");
    add_common(*v.diff_cmd, v.diff, true);
    v.diff_cmd->add_option("--receipt", v.diff.receipt, "Receipt file (- for stdin)")->required();
    v.diff_cmd->add_option("--before-to", v.diff.before_to, "Where to write the content before")->required();
    v.diff_cmd->add_option("--after-to", v.diff.after_to, "Where to write the content now")->required();

    v.revert_cmd = file->add_subcommand("revert", "Write the content before a recorded edit back");
    add_common(*v.revert_cmd, v.revert, true);
    v.revert_cmd->add_option("--receipt", v.revert.receipt, "Receipt file (- for stdin)")->required();

    v.provision_cmd = app.add_subcommand("provision-snapshot-dir",
                                         "Create the shared snapshot directory: owner root, the group, mode 2770");
    v.provision_cmd->add_option("--group", v.provision.group, "The application's group")->required();
    v.provision_cmd->add_option("path", v.provision.path, "Absolute path of the directory")->required();
    return handle;
}

std::optional<int> FileVerbsHandle::dispatch() const
{
    const auto& v = *verbs;
    if (*v.read_cmd) {
        return file_read(v.read);
    }
    if (*v.write_cmd) {
        return file_write(v.write);
    }
    if (*v.begin_cmd) {
        return file_begin_edit(v.begin);
    }
    if (*v.record_cmd) {
        return file_record_edit(v.record);
    }
    if (*v.diff_cmd) {
        return file_diff(v.diff);
    }
    if (*v.revert_cmd) {
        return file_revert(v.revert);
    }
    if (*v.provision_cmd) {
        return provision(v.provision);
    }
    return std::nullopt;
}

} // namespace nr::ctl
