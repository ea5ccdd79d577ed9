// SPDX-License-Identifier: Apache-2.0
#pragma once
// The helper's Files interface (dbus/org.metis.NativeRuntime1.Files.xml):
// reads, writes, edit receipts, diff and revert in an owner's tree on the
// worker's behalf, so the worker never opens a path a session controls.
// Handlers follow the Manager's order: parse, validate, authorize (the same
// caller policy as StartSession), act with the run-as user's filesystem
// identity, reply; every refusal is a typed error.

#include <sdbus-c++/sdbus-c++.h>

#include "core/config/config.h"
#include "core/files/edit_receipt.h"
#include "dbus/native_runtime_files_adaptor.h"
#include "sys/fs/fs_identity.h"

namespace nr::daemon {

class FileService final : public sdbus::AdaptorInterfaces<org::metis::NativeRuntime1::Files_adaptor> {
public:
    FileService(sdbus::IConnection& connection, core::Config config);
    ~FileService();
    FileService(const FileService&) = delete;
    FileService& operator=(const FileService&) = delete;
    FileService(FileService&&) = delete;
    FileService& operator=(FileService&&) = delete;

private:
    std::tuple<sdbus::UnixFd, uint64_t> OpenForRead(const std::string& owner, const std::string& chat,
                                                    const std::string& area, const std::string& relpath,
                                                    const std::string& run_as_user) override;
    uint64_t WriteFile(const std::string& owner, const std::string& chat, const std::string& area,
                       const std::string& relpath, const std::string& run_as_user,
                       const sdbus::UnixFd& content) override;
    std::string BeginEdit(const std::string& owner, const std::string& chat, const std::string& job,
                          const std::string& relpath, const std::string& run_as_user) override;
    std::string RecordEdit(const std::string& owner, const std::string& chat, const std::string& job,
                           const std::string& handle, const std::string& run_as_user) override;
    std::tuple<sdbus::UnixFd, sdbus::UnixFd> Diff(const std::string& owner, const std::string& chat,
                                                  const std::string& job, const std::string& receipt,
                                                  const std::string& run_as_user) override;
    void Revert(const std::string& owner, const std::string& chat, const std::string& job, const std::string& receipt,
                const std::string& run_as_user) override;

    // The run-as user's filesystem credentials, decided exactly as for
    // StartSession from the bus credentials of the current message.
    [[nodiscard]] sys::FsCredentials authorize(const std::string& run_as_user) const;

    struct CheckedEdit {
        core::EditReceipt receipt;
        std::string before;
        std::string current;
    };
    // Authentic, bound to (owner, chat, job), unexpired, unused, file in the
    // state the edit left it; plus both contents ("" for an absent state).
    CheckedEdit check_edit(const std::string& owner, const std::string& chat, const std::string& job,
                           const std::string& receipt_text, const sys::FsCredentials& who) const;

    core::Config config_;
};

} // namespace nr::daemon
