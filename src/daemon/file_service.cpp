// SPDX-License-Identifier: Apache-2.0
#include "daemon/file_service.h"

#include "core/base/error.h"
#include "core/base/ids.h"
#include "core/base/relative_path.h"
#include "core/bus/bus_names.h"
#include "core/files/file_area.h"
#include "core/journal/journal_fields.h"
#include "daemon/handler_steps.h"
#include "daemon/request_log.h"
#include "sys/base/journal_writer.h"
#include "sys/base/random_token.h"
#include "sys/base/sealed_memfd.h"
#include "sys/bus/bus_compat.h"
#include "sys/crypto/digest.h"
#include "sys/crypto/receipt_store.h"
#include "sys/fs/safe_dirs.h"
#include "sys/fs/safe_files.h"

#include <poll.h>
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
    record.fields.emplace_back(core::kFieldReceipt, receipt);
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
    constexpr std::size_t kReceiptIdBytes = 16;
    return sys::random_hex(kReceiptIdBytes, ErrorKind::ReceiptInvalid, "a receipt id");
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

std::int64_t now()
{
    return static_cast<std::int64_t>(std::time(nullptr));
}

// A file as the helper sees it now, through the run-as user's identity:
// its content and identity, or absent (no such name; a missing parent
// directory counts as absent too).
struct Observed {
    core::ObservedFile file;
    std::string data;
    mode_t mode = 0;
};

Observed observe(int root_fd, const std::vector<std::string>& names, std::uint64_t max_bytes)
{
    Observed out;
    try {
        auto snapshot = sys::read_file_beneath(root_fd, names, max_bytes);
        out.file = core::ObservedFile{true, static_cast<std::uint64_t>(snapshot.st.st_dev),
                                      static_cast<std::uint64_t>(snapshot.st.st_ino), sys::sha256_hex(snapshot.data)};
        out.mode = snapshot.st.st_mode & 0777;
        out.data = std::move(snapshot.data);
    } catch (const core::Error& e) {
        if (e.kind() != ErrorKind::NoSuchFile) {
            throw;
        }
    }
    return out;
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
    : AdaptorInterfaces(connection, sdbus::ObjectPath{core::kObjectPath}), config_(std::move(config))
{
    registerAdaptor();
}

FileService::~FileService()
{
    unregisterAdaptor();
}

sys::FsCredentials FileService::authorize(const std::string& run_as_user) const
{
    const auto user = resolve_run_as_user(config_.callers, require_caller_uid(getObject()), run_as_user);
    if (user.uid == 0) {
        fail(ErrorKind::AccessDenied, "file operations never run as root");
    }
    return sys::credentials_of(user.uid);
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

std::string FileService::BeginEdit(const std::string& owner, const std::string& chat, const std::string& job,
                                   const std::string& relpath, const std::string& run_as_user)
{
    return refused_as_typed_error(getObject(), "BeginEdit", {owner, chat, job, {}}, RequestKind::File, [&] {
        validate_scope(owner, chat, job);
        const auto names = core::parse_relative_path(relpath, "relpath");
        require_snapshot_dir(config_);
        const auto who = authorize(run_as_user);
        Observed before;
        {
            const sys::ScopedFsIdentity identity(who);
            const auto root = open_area(config_, owner, chat, core::FileArea::Workspace, who);
            before = observe(root.get(), names, config_.files.max_bytes);
        }
        const auto handle =
            core::make_handle(new_receipt_id(), owner, chat, job, core::join_components(names), before.file,
                              static_cast<std::uint32_t>(before.mode), now(), config_.files.receipt_ttl_sec);
        // The key, the snapshot dir and the used marks are the helper's
        // own (root), never the run-as user's.
        const auto key = sys::load_or_create_receipt_key(config_.files.receipt_key);
        if (before.file.present) {
            sys::SnapshotDir(config_.snapshot_dir).store_snapshot(handle.id, before.data);
        }
        auto text = sys::sign_receipt(handle, key);
        log_edit("began edit " + handle.id + " of " + handle.path, {owner, chat, job, {}}, handle.id);
        return text;
    });
}

std::string FileService::RecordEdit(const std::string& owner, const std::string& chat, const std::string& job,
                                    const std::string& handle_text, const std::string& run_as_user)
{
    return refused_as_typed_error(getObject(), "RecordEdit", {owner, chat, job, {}}, RequestKind::File, [&] {
        validate_scope(owner, chat, job);
        require_snapshot_dir(config_);
        const auto who = authorize(run_as_user);
        const auto key = sys::load_or_create_receipt_key(config_.files.receipt_key);
        const auto handle = sys::verify_receipt(handle_text, key, core::ReceiptKind::Handle);
        core::check_receipt_binding(handle, owner, chat, job);
        const auto at = now();
        core::check_receipt_fresh(handle, at);
        sys::UsedReceipts used(core::used_receipts_dir(config_.files.receipt_key));
        if (used.used(handle)) {
            fail(ErrorKind::ReceiptUsed, "the edit handle was already recorded");
        }
        Observed after;
        {
            const sys::ScopedFsIdentity identity(who);
            const auto root = open_area(config_, owner, chat, core::FileArea::Workspace, who);
            after = observe(root.get(), core::parse_relative_path(handle.path, "handle path"), config_.files.max_bytes);
        }
        const auto receipt = core::make_receipt(handle, after.file, at, config_.files.receipt_ttl_sec);
        sys::SnapshotDir dir(config_.snapshot_dir);
        used.prune(at);
        used.claim(handle);
        std::string text;
        try {
            text = dir.store_receipt(receipt, key);
        } catch (...) {
            used.release(handle);
            throw;
        }
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
    out.receipt = sys::verify_receipt(receipt_text, key, core::ReceiptKind::Receipt);
    core::check_receipt_binding(out.receipt, owner, chat, job);
    core::check_receipt_fresh(out.receipt, now());
    if (sys::UsedReceipts(core::used_receipts_dir(config_.files.receipt_key)).used(out.receipt)) {
        fail(ErrorKind::ReceiptUsed, "the receipt was already used to revert");
    }
    Observed current;
    {
        const sys::ScopedFsIdentity identity(who);
        const auto root = open_area(config_, owner, chat, core::FileArea::Workspace, who);
        current =
            observe(root.get(), core::parse_relative_path(out.receipt.path, "receipt path"), config_.files.max_bytes);
    }
    core::check_receipt_current(out.receipt, current.file);
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
        const auto& r = edit.receipt;
        const auto names = core::parse_relative_path(r.path, "receipt path");
        // Marked used before the file is touched, durably: a replay, also
        // after a helper restart, finds the mark. Taken back only when the
        // revert failed without changing anything.
        sys::UsedReceipts used(core::used_receipts_dir(config_.files.receipt_key));
        used.prune(now());
        used.claim(r);
        try {
            const sys::ScopedFsIdentity identity(who);
            const auto root = open_area(config_, owner, chat, core::FileArea::Workspace, who);
            if (core::revert_action(r) == core::RevertAction::RemoveFile) {
                sys::remove_file_beneath(root.get(), names, r.device, r.inode);
            } else {
                sys::replace_file_beneath(root.get(), names, edit.before, r.before_mode);
            }
        } catch (...) {
            used.release(r);
            throw;
        }
        log_edit("reverted edit " + r.id + " of " + r.path, {owner, chat, job, {}}, r.id);
    });
}

} // namespace nr::daemon
