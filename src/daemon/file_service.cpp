#include "daemon/file_service.h"

#include "core/caller_policy.h"
#include "core/error.h"
#include "core/file_area.h"
#include "core/ids.h"
#include "core/relative_path.h"
#include "daemon/bus_errors.h"
#include "daemon/request_log.h"
#include "sys/bus_compat.h"
#include "sys/digest.h"
#include "sys/identity.h"
#include "sys/journal_writer.h"
#include "sys/receipt_store.h"
#include "sys/safe_dirs.h"
#include "sys/safe_files.h"
#include "sys/sealed_memfd.h"

#include <poll.h>
#include <sys/random.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <ctime>

namespace nr::daemon {

namespace {

using core::ErrorKind;
using core::fail;

constexpr mode_t kNewFileMode = 0600;
// A content fd that never reaches end of file must not hold the helper.
constexpr auto kContentDeadline = std::chrono::seconds(30);
constexpr std::size_t kChunk = 65536;

void log_edit(const std::string& message, const core::SessionRef& ref, const std::string& receipt)
{
    auto record = core::log_record(core::LogEvent::FileEdited, message);
    core::add_session(record, ref);
    record.fields.emplace_back("NATIVE_RUNTIME_RECEIPT", receipt);
    sys::write_log(record);
}

// Everything readable from a caller's fd, at most `max_bytes`.
std::string read_content(int fd, std::uint64_t max_bytes)
{
    const auto deadline = std::chrono::steady_clock::now() + kContentDeadline;
    std::string out;
    std::array<char, kChunk> buffer{};
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd p{fd, POLLIN, 0};
        if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) == 0) {
            fail(ErrorKind::InvalidArgument, "the content fd did not reach end of file in time");
        }
        const auto n = read(fd, buffer.data(), buffer.size());
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
            continue;
        }
        if (n < 0) {
            fail(ErrorKind::InvalidArgument, "cannot read the content fd");
        }
        if (n == 0) {
            return out;
        }
        out.append(buffer.data(), static_cast<std::size_t>(n));
        if (out.size() > max_bytes) {
            fail(ErrorKind::FileTooLarge,
                 "content is larger than the limit of " + std::to_string(max_bytes) + " bytes");
        }
    }
}

sdbus::UnixFd memfd_with(const char* name, const std::string& data)
{
    auto fd = sys::sealed_memfd(name, data);
    return sdbus::UnixFd(fd.release(), sdbus::adopt_fd);
}

std::string new_receipt_id()
{
    std::array<unsigned char, 16> bytes{};
    if (getrandom(bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
        fail(ErrorKind::ReceiptInvalid, "no randomness for a receipt id");
    }
    static constexpr const char* kDigits = "0123456789abcdef";
    std::string out;
    for (const auto b : bytes) {
        out += kDigits[b >> 4U];
        out += kDigits[b & 0x0FU];
    }
    return out;
}

// The allowed root, opened without symlinks from "/" with the run-as
// user's identity: ancestors owned by root or that user only.
sys::UniqueFd open_area(const core::Config& config, const std::string& owner, const std::string& chat,
                        core::FileArea area, const sys::FsCredentials& who)
{
    return sys::open_directory_no_symlinks(core::file_area_path(config, owner, chat, area), who.uid);
}

void require_snapshot_dir(const core::Config& config)
{
    if (config.snapshot_dir.empty()) {
        fail(ErrorKind::ConfigInvalid, "no snapshot_dir is configured, so edits cannot be recorded");
    }
}

// Every handler names the owner and chat whose tree it works in; the
// receipt handlers also name the job the edit belongs to.
void validate_scope(const std::string& owner, const std::string& chat)
{
    core::validate_id(core::IdKind::Owner, owner);
    core::validate_id(core::IdKind::Chat, chat);
}

void validate_scope(const std::string& owner, const std::string& chat, const std::string& job)
{
    validate_scope(owner, chat);
    core::validate_id(core::IdKind::Job, job);
}

} // namespace

FileService::FileService(sdbus::IConnection& connection, core::Config config)
    : AdaptorInterfaces(connection, sdbus::ObjectPath{kObjectPath}), config_(std::move(config))
{
    registerAdaptor();
}

FileService::~FileService()
{
    unregisterAdaptor();
}

sys::FsCredentials FileService::authorize(const std::string& run_as_user) const
{
    const auto uid = sys::caller_uid(getObject());
    if (!uid) {
        fail(ErrorKind::AccessDenied, "no caller credentials");
    }
    const auto caller = sys::lookup_caller(*uid);
    const auto name = core::decide_run_as_user(config_.callers, caller, run_as_user);
    const auto user = sys::lookup_user(name);
    if (!user) {
        fail(ErrorKind::AccessDenied, "run-as user " + name + " does not exist");
    }
    if (user->uid == 0) {
        fail(ErrorKind::AccessDenied, "file operations never run as root");
    }
    return sys::credentials_of(user->uid);
}

std::tuple<sdbus::UnixFd, uint64_t> FileService::OpenForRead(const std::string& owner, const std::string& chat,
                                                             const std::string& area, const std::string& relpath,
                                                             const std::string& run_as_user)
{
    return refused_as_typed_error(getObject(), "OpenForRead", {owner, chat, {}, {}}, RequestKind::File, [&] {
        const auto which = core::parse_file_area(area);
        validate_scope(owner, chat);
        const auto names = core::parse_relative_path(relpath, "relpath");
        const auto who = authorize(run_as_user);
        sys::FileSnapshot file;
        {
            const sys::ScopedFsIdentity identity(who);
            const auto root = open_area(config_, owner, chat, which, who);
            file = sys::read_file_beneath(root.get(), names, config_.files.max_bytes);
        }
        return std::make_tuple(memfd_with("nr-file-read", file.data), static_cast<uint64_t>(file.data.size()));
    });
}

uint64_t FileService::WriteFile(const std::string& owner, const std::string& chat, const std::string& area,
                                const std::string& relpath, const std::string& run_as_user,
                                const sdbus::UnixFd& content)
{
    return refused_as_typed_error(getObject(), "WriteFile", {owner, chat, {}, {}}, RequestKind::File, [&] {
        const auto which = core::parse_file_area(area);
        validate_scope(owner, chat);
        const auto names = core::parse_relative_path(relpath, "relpath");
        const auto who = authorize(run_as_user);
        const auto data = read_content(content.get(), config_.files.max_bytes);
        const sys::ScopedFsIdentity identity(who);
        const auto root = open_area(config_, owner, chat, which, who);
        const auto mode = sys::replacement_mode(root.get(), names, kNewFileMode);
        sys::replace_file_beneath(root.get(), names, data, mode);
        return static_cast<uint64_t>(data.size());
    });
}

std::string FileService::RecordEdit(const std::string& owner, const std::string& chat, const std::string& job,
                                    const std::string& relpath, const std::string& run_as_user,
                                    const sdbus::UnixFd& before)
{
    return refused_as_typed_error(getObject(), "RecordEdit", {owner, chat, job, {}}, RequestKind::File, [&] {
        validate_scope(owner, chat, job);
        const auto names = core::parse_relative_path(relpath, "relpath");
        require_snapshot_dir(config_);
        const auto who = authorize(run_as_user);
        const auto before_data = read_content(before.get(), config_.files.max_bytes);
        sys::FileSnapshot after;
        {
            const sys::ScopedFsIdentity identity(who);
            const auto root = open_area(config_, owner, chat, core::FileArea::Workspace, who);
            after = sys::read_file_beneath(root.get(), names, config_.files.max_bytes);
        }
        core::EditReceipt receipt;
        receipt.id = new_receipt_id();
        receipt.owner = owner;
        receipt.chat = chat;
        receipt.job = job;
        receipt.path = core::join_components(names);
        receipt.device = static_cast<std::uint64_t>(after.st.st_dev);
        receipt.inode = static_cast<std::uint64_t>(after.st.st_ino);
        receipt.before_sha256 = sys::sha256_hex(before_data);
        receipt.after_sha256 = sys::sha256_hex(after.data);
        receipt.time = static_cast<std::int64_t>(std::time(nullptr));
        // The key and the snapshot dir are the helper's own (root), never
        // the run-as user's.
        const auto key = sys::load_or_create_receipt_key(config_.files.receipt_key);
        sys::SnapshotDir dir(config_.snapshot_dir);
        auto text = dir.store(receipt, before_data, key);
        log_edit("recorded edit receipt " + receipt.id + " for " + receipt.path, {owner, chat, job, {}}, receipt.id);
        return text;
    });
}

FileService::CheckedEdit FileService::check_edit(const std::string& owner, const std::string& chat,
                                                 const std::string& job, const std::string& receipt_text,
                                                 const sys::FsCredentials& who) const
{
    require_snapshot_dir(config_);
    CheckedEdit out;
    const auto key = sys::load_or_create_receipt_key(config_.files.receipt_key);
    out.receipt = sys::verify_receipt(receipt_text, key);
    core::check_receipt_binding(out.receipt, owner, chat, job);
    sys::FileSnapshot current;
    {
        const sys::ScopedFsIdentity identity(who);
        const auto root = open_area(config_, owner, chat, core::FileArea::Workspace, who);
        try {
            current = sys::read_file_beneath(root.get(), core::parse_relative_path(out.receipt.path, "receipt path"),
                                             config_.files.max_bytes);
        } catch (const core::Error& e) {
            if (e.kind() == ErrorKind::NoSuchFile) {
                fail(ErrorKind::ReceiptStale, out.receipt.path + " no longer exists");
            }
            throw;
        }
    }
    core::check_receipt_current(out.receipt, static_cast<std::uint64_t>(current.st.st_dev),
                                static_cast<std::uint64_t>(current.st.st_ino), sys::sha256_hex(current.data));
    out.before = sys::SnapshotDir(config_.snapshot_dir).snapshot_of(out.receipt, config_.files.max_bytes);
    out.current = std::move(current.data);
    return out;
}

std::tuple<sdbus::UnixFd, sdbus::UnixFd> FileService::Diff(const std::string& owner, const std::string& chat,
                                                           const std::string& job, const std::string& receipt,
                                                           const std::string& run_as_user)
{
    return refused_as_typed_error(getObject(), "Diff", {owner, chat, job, {}}, RequestKind::File, [&] {
        validate_scope(owner, chat, job);
        const auto who = authorize(run_as_user);
        const auto edit = check_edit(owner, chat, job, receipt, who);
        return std::make_tuple(memfd_with("nr-edit-before", edit.before), memfd_with("nr-edit-after", edit.current));
    });
}

void FileService::Revert(const std::string& owner, const std::string& chat, const std::string& job,
                         const std::string& receipt, const std::string& run_as_user)
{
    refused_as_typed_error(getObject(), "Revert", {owner, chat, job, {}}, RequestKind::File, [&] {
        validate_scope(owner, chat, job);
        const auto who = authorize(run_as_user);
        const auto edit = check_edit(owner, chat, job, receipt, who);
        const auto names = core::parse_relative_path(edit.receipt.path, "receipt path");
        const sys::ScopedFsIdentity identity(who);
        const auto root = open_area(config_, owner, chat, core::FileArea::Workspace, who);
        sys::replace_file_beneath(root.get(), names, edit.before,
                                  sys::replacement_mode(root.get(), names, kNewFileMode));
        log_edit("reverted edit " + edit.receipt.id + " of " + edit.receipt.path, {owner, chat, job, {}},
                 edit.receipt.id);
    });
}

} // namespace nr::daemon
