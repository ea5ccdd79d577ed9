// SPDX-License-Identifier: Apache-2.0
#pragma once
// The operator verbs of native-runtimectl: drop-in installer,
// inspection and preflight. One function per verb; cli.cpp only parses.
// Each may throw: Cli::dispatch() maps what it throws to the exit status.

#include "core/config/config.h"
#include "core/ops/dropin.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace nr::sys {
class SystemdManager;
} // namespace nr::sys

namespace nr::ctl {

struct DropinOptions {
    std::vector<std::string> units; // empty: the config's app_units
    std::string root;               // empty: the running host (reload and verify)
    bool no_reload = false;
};

int install_dropins(const DropinOptions& options);
int uninstall_dropins(const DropinOptions& options);

struct StatusOptions {
    std::string owner;
    std::string chat;
    std::string json;       // empty: text; short or pretty
    std::size_t lines = 10; // -n: the newest N journal records, as systemctl status
};

// One session as systemd sees it, with its process tree and its newest
// journal records; throws NoSuchSession when there is none.
int session_status(const StatusOptions& options);

struct LogsOptions {
    std::string owner;
    std::string chat;                 // empty: every chat of the owner
    std::optional<std::size_t> lines; // -n: the newest N (10 with --follow)
    std::string since;                // journalctl's --since, checked by journalctl
    bool follow = false;              // -f: keep printing new records
    std::string output = "short";     // -o short|json
    bool json = false;                // --json: the same as -o json
    bool no_pager = false;
};

// Execs journalctl with the trusted matches (core/journal/log_query.h); with -f,
// runs it again after each change of the journal (ctl/logs_follow.h).
int session_logs(const LogsOptions& options);

struct PreflightOptions {
    std::string json;               // empty: text; short or pretty
    std::vector<std::string> units; // added to the config's app_units
    std::string user;               // canary user; default: the first run-as/caller user
};

int preflight(const PreflightOptions& options);

// What the late drop-in must carry for this config.
core::DropinValues dropin_values(const core::Config& config);

// Prints one line per unit; kExitCheckFailed when any is not in effect.
int verify_dropins(sys::SystemdManager& systemd, const std::vector<std::string>& units,
                   const core::DropinValues& values, const std::string& root);

} // namespace nr::ctl
