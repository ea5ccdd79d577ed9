#pragma once
// native-runtimectl's file verbs: `file read|write|begin-edit|record-edit|diff|revert`
// (through the helper's Files interface) and `provision-snapshot-dir`
// (local, as root). Kept out of main.cpp so adding them touches main() by
// two lines only.

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>

namespace nr::ctl {

struct FileVerbs;

struct FileVerbsHandle {
    FileVerbsHandle();
    FileVerbsHandle(FileVerbsHandle&&) noexcept;
    FileVerbsHandle& operator=(FileVerbsHandle&&) noexcept;
    FileVerbsHandle(const FileVerbsHandle&) = delete;
    FileVerbsHandle& operator=(const FileVerbsHandle&) = delete;
    ~FileVerbsHandle();

    // The exit status of the file verb that was parsed, if any.
    std::optional<int> dispatch() const;

    std::unique_ptr<FileVerbs> verbs;
};

FileVerbsHandle add_file_verbs(CLI::App& app);

} // namespace nr::ctl
