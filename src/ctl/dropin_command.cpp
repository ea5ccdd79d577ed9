// SPDX-License-Identifier: Apache-2.0
// `native-runtimectl install-dropins` / `uninstall-dropins`: put the late
// drop-in into the application's units, reload systemd over the bus, and
// read back that systemd applies it (naming any file that overrides it).

#include "core/base/app_unit_name.h"
#include "core/base/error.h"
#include "core/base/unit_name.h"
#include "core/config/config.h"
#include "core/journal/journal_fields.h"
#include "core/journal/log_event.h"
#include "core/ops/dropin.h"
#include "ctl/exit_status.h"
#include "ctl/operator_commands.h"
#include "sys/base/journal_writer.h"
#include "sys/fs/dropin_files.h"
#include "sys/host/config_file.h"
#include "sys/preflight/preflight.h"
#include "sys/systemd/dropin_check.h"
#include "sys/systemd/systemd_manager.h"

#include <sdbus-c++/sdbus-c++.h>

#include <iostream>
#include <stdexcept>
#include <system_error>

#ifndef NR_DROPIN_TEMPLATE
#error "NR_DROPIN_TEMPLATE must be defined by the build"
#endif
#ifndef NR_HELPER_DROPIN_TEMPLATE
#error "NR_HELPER_DROPIN_TEMPLATE must be defined by the build"
#endif
#ifndef NR_WORKER_GROUP
#error "NR_WORKER_GROUP must be defined by the build"
#endif

namespace nr::ctl {

namespace {

std::string_view outcome_name(sys::WriteOutcome outcome)
{
    switch (outcome) {
    case sys::WriteOutcome::Created: return "installed";
    case sys::WriteOutcome::Updated: return "updated";
    case sys::WriteOutcome::Unchanged: return "unchanged";
    }
    return "?";
}

// Units from the command line, else the config's app_units.
std::vector<std::string> units_to_handle(const DropinOptions& options, const core::Config& config)
{
    const auto& units = options.units.empty() ? config.app_units : options.units;
    if (units.empty()) {
        throw std::invalid_argument("no unit: pass --unit APP.service or set app_units in " + config.source);
    }
    for (const auto& unit : units) {
        core::validate_app_unit_name(unit);
    }
    return units;
}

bool live_host(const DropinOptions& options)
{
    return options.root.empty() || options.root == "/";
}

std::string read_template(const char* path)
{
    const auto text = sys::read_text_file(path);
    if (!text) {
        throw std::system_error(ENOENT, std::generic_category(), path);
    }
    return *text;
}

// Changing what systemd applies to an application's units is an operator
// action worth a record (who: _UID and _PID, which journald adds).
void log_dropin_change(const std::string& unit, const std::string& what)
{
    sys::set_log_identifier("native-runtimectl");
    auto record = core::log_record(core::LogEvent::DropinsChanged, unit + ": " + what);
    record.fields.emplace_back(core::kFieldDropinUnit, unit);
    sys::write_log(record);
}

// Writes our drop-in for `unit` (refusing to replace a file that is not
// ours) and says what happened.
void install_one(const DropinOptions& options, const std::string& unit, const std::string& template_text,
                 const core::DropinValues& values)
{
    const auto dir = core::dropin_directory(options.root, unit);
    const auto path = dir + "/" + std::string(core::kDropinFileName);
    const auto outcome = sys::write_file_atomically(dir, core::kDropinFileName, [&](bool created) {
        // Keep the record of a directory an earlier install created.
        const auto old = sys::read_text_file(path);
        if (old && !core::inspect_installed(*old).ours) {
            core::fail(core::ErrorKind::UnsafeFile, path + " was not written by native-runtimectl; move it away first");
        }
        created = created || (old && core::inspect_installed(*old).created_directory);
        return core::render_dropin(template_text, values, created);
    });
    std::cout << unit << ": " << outcome_name(outcome) << ' ' << path << '\n';
    if (outcome != sys::WriteOutcome::Unchanged) {
        log_dropin_change(unit, std::string(outcome_name(outcome)) + " " + path);
    }
}

// Removes our drop-in for `unit`; false when a file there is not ours.
bool uninstall_one(const DropinOptions& options, const std::string& unit)
{
    const auto dir = core::dropin_directory(options.root, unit);
    const auto path = dir + "/" + std::string(core::kDropinFileName);
    const auto text = sys::read_text_file(path);
    if (!text) {
        std::cout << unit << ": not installed\n";
        return true;
    }
    const auto installed = core::inspect_installed(*text);
    if (!installed.ours) {
        std::cerr << unit << ": " << path << " was not written by native-runtimectl; left in place\n";
        return false;
    }
    sys::remove_file_durably(dir, core::kDropinFileName, installed.created_directory);
    std::cout << unit << ": removed " << path << '\n';
    log_dropin_change(unit, "removed " + path);
    return true;
}

} // namespace

core::DropinValues dropin_values(const core::Config& config)
{
    return core::DropinValues{config.snapshot_dir, NR_WORKER_GROUP, config.data_dir};
}

int verify_dropins(sys::SystemdManager& systemd, const std::vector<std::string>& units,
                   const core::DropinValues& values, const std::string& root)
{
    int status = 0;
    for (const auto& unit : units) {
        const auto ours = core::dropin_directory(root, unit) + "/" + std::string(core::kDropinFileName);
        const auto conflicts = sys::check_dropin_effective(systemd, unit, core::expected_settings(values), ours);
        if (conflicts.empty()) {
            std::cout << unit << ": in effect\n";
            continue;
        }
        status = core::kExitCheckFailed;
        for (const auto& conflict : conflicts) {
            std::cerr << unit << ": NOT in effect: " << conflict.message << '\n';
        }
    }
    return status;
}

int install_dropins(const DropinOptions& options)
{
    const auto config = sys::load_config(sys::config_path());
    const auto units = units_to_handle(options, config);
    const auto app_template = read_template(NR_DROPIN_TEMPLATE);
    const auto helper_template = read_template(NR_HELPER_DROPIN_TEMPLATE);
    const auto values = dropin_values(config);
    for (const auto& unit : units) {
        install_one(options, unit, app_template, values);
    }
    const std::string helper(core::kHelperUnit);
    install_one(options, helper, helper_template, values);
    if (!live_host(options) || options.no_reload) {
        return 0;
    }
    auto connection = sdbus::createSystemBusConnection();
    sys::SystemdManager systemd(*connection);
    systemd.reload();
    auto status = verify_dropins(systemd, units, values, options.root);
    const auto helper_check = sys::check_helper_dropin(systemd, values);
    if (helper_check.passed) {
        // A running helper keeps the mount namespace it started with.
        std::cout << helper << ": in effect from the helper's next start\n";
    } else {
        std::cerr << helper << ": NOT in effect: " << helper_check.detail << '\n';
        status = core::kExitCheckFailed;
    }
    return status;
}

int uninstall_dropins(const DropinOptions& options)
{
    const auto config = sys::load_config(sys::config_path());
    const auto units = units_to_handle(options, config);
    auto all_units = units;
    all_units.emplace_back(core::kHelperUnit);
    int status = 0;
    for (const auto& unit : all_units) {
        if (!uninstall_one(options, unit)) {
            status = core::kExitCheckFailed;
        }
    }
    if (!live_host(options) || options.no_reload) {
        return status;
    }
    auto connection = sdbus::createSystemBusConnection();
    sys::SystemdManager systemd(*connection);
    systemd.reload();
    for (const auto& unit : all_units) {
        const auto path = core::dropin_directory(options.root, unit) + "/" + std::string(core::kDropinFileName);
        if (sys::dropin_applied(systemd, unit, path)) {
            std::cerr << unit << ": systemd still applies " << path << '\n';
            status = core::kExitCheckFailed;
        }
    }
    return status;
}

} // namespace nr::ctl
