// SPDX-License-Identifier: Apache-2.0
#pragma once
// native-runtimectl's file verbs: `file read|write|begin-edit|record-edit|diff|revert`
// (through the helper's Files interface) and `provision-snapshot-dir`
// (local, as root). One function per verb; cli.cpp only parses. Each may
// throw: Cli::dispatch() maps what it throws to the exit status.

#include <string>

namespace nr::ctl {

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

int file_read(const FileOptions& o);
int file_write(const FileOptions& o);
int file_begin_edit(const FileOptions& o);
int file_record_edit(const FileOptions& o);
int file_diff(const FileOptions& o);
int file_revert(const FileOptions& o);

struct ProvisionOptions {
    std::string group;
    std::string path;
};

int provision(const ProvisionOptions& o);

} // namespace nr::ctl
