// SPDX-License-Identifier: Apache-2.0
// `native-runtimectl preflight`: every host prerequisite as a named check
// with a pass/fail line and a hint; non-zero exit when any fails. The
// helper runs the same checks (src/daemon/preflight_gate.cpp). Warnings
// about the configuration (core/ops/provider_keys.h) follow, and never change
// the exit status.

#include "core/base/error.h"
#include "core/bus/bus_names.h"
#include "core/cli/json_output.h"
#include "core/launch/launcher_args.h"
#include "core/ops/provider_keys.h"
#include "ctl/exit_status.h"
#include "ctl/helper_retry.h"
#include "ctl/operator_commands.h"
#include "sys/bus/bus_compat.h"
#include "sys/host/config_file.h"
#include "sys/host/identity.h"
#include "sys/preflight/preflight.h"

#include <sdbus-c++/sdbus-c++.h>

#include <chrono>
#include <iostream>

#ifndef NR_LAUNCHER_PATH
#error "NR_LAUNCHER_PATH must be defined by the build"
#endif
#ifndef NR_SUPERVISOR_PATH
#error "NR_SUPERVISOR_PATH must be defined by the build"
#endif
#ifndef NR_HELPER_PATH
#error "NR_HELPER_PATH must be defined by the build"
#endif

namespace nr::ctl {

namespace {

std::string canary_user_name(const PreflightOptions& options, const core::Config& config)
{
    if (!options.user.empty()) {
        return options.user;
    }
    if (!config.callers.run_as_users.empty()) {
        return config.callers.run_as_users.front();
    }
    if (!config.callers.users.empty()) {
        return config.callers.users.front();
    }
    return "nobody";
}

// The canary can only run through the helper: its launcher claims the
// launch spec from the helper, like a session's. The helper runs it fresh
// for this call and keeps (or forgets) its per-boot pass accordingly.
core::CheckResult canary_through_helper(sdbus::IConnection& connection, const std::string& user_name)
{
    // The unit's RuntimeMaxSec=, plus the wait for an earlier canary's name.
    constexpr auto kTimeout = std::chrono::seconds(core::kCanaryRuntimeMaxSec + 30);
    try {
        auto helper = sys::make_proxy(connection, core::kBusName, core::kObjectPath);
        bool passed = false;
        std::string detail;
        std::string hint;
        call_helper([&] {
            helper->callMethod("RunCanary")
                .onInterface(core::kManagerInterface)
                .withTimeout(kTimeout)
                .withArguments(user_name)
                .storeResultsTo(passed, detail, hint);
        });
        return {core::kCheckCanary, passed, detail, hint};
    } catch (const sdbus::Error& e) {
        return {core::kCheckCanary, false, "the helper did not run the canary: " + e.getName() + ": " + e.getMessage(),
                "run preflight as root; the helper must be installed and activatable "
                "(`journalctl -u native-runtimed`)"};
    }
}

std::vector<core::CheckResult> run_checks(const PreflightOptions& options, const core::Config& config)
{
    std::vector<core::CheckResult> results;
    const auto user_name = canary_user_name(options, config);
    const auto user = sys::lookup_user(user_name);
    if (!user || user->uid == 0) {
        results.push_back({core::kCheckUserns, false, "canary user " + user_name + " does not exist or is root",
                           "pass --user with an unprivileged user sessions run as"});
    } else {
        results.push_back(sys::check_userns(*user));
    }
    results.push_back(sys::check_landlock());
    results.push_back(sys::check_cgroups());
    results.push_back(sys::check_bwrap(config));
    results.push_back(sys::check_protected_hardlinks());
    results.push_back(sys::check_snapshot_dir(config, dropin_values(config).worker_group));
    auto principals = sys::session_principals(config);
    if (user && std::find(principals.begin(), principals.end(), user_name) == principals.end()) {
        principals.push_back(user_name);
    }
    results.push_back(sys::check_immutable(
        config, {NR_LAUNCHER_PATH, core::claim_path_beside(NR_LAUNCHER_PATH), NR_SUPERVISOR_PATH, NR_HELPER_PATH},
        principals));

    auto units = config.app_units;
    for (const auto& unit : options.units) {
        if (std::find(units.begin(), units.end(), unit) == units.end()) {
            units.push_back(unit);
        }
    }
    try {
        auto connection = sdbus::createSystemBusConnection();
        sys::SystemdManager systemd(*connection);
        results.push_back(sys::check_systemd_version(systemd));
        if (user && user->uid != 0) {
            results.push_back(canary_through_helper(*connection, user_name));
        }
        results.push_back(sys::check_dropins(systemd, units, dropin_values(config)));
        results.push_back(sys::check_helper_dropin(systemd, dropin_values(config)));
    } catch (const sdbus::Error& e) {
        results.push_back({core::kCheckSystemd, false, "no system bus: " + e.getMessage(),
                           "preflight needs systemd as PID 1 and the system bus"});
    }
    return results;
}

void print_text(const std::vector<core::CheckResult>& results)
{
    for (const auto& result : results) {
        std::cout << core::verdict_word(result) << ' ' << result.name << ": " << result.detail << '\n';
        if (!result.passed || result.warning) {
            std::cout << "     hint: " << result.hint << '\n';
        }
    }
}

void print_json(const std::vector<core::CheckResult>& results, core::JsonStyle style)
{
    auto checks = core::Json::array();
    for (const auto& r : results) {
        checks.push_back(
            {{"name", r.name}, {"passed", r.passed}, {"warning", r.warning}, {"detail", r.detail}, {"hint", r.hint}});
    }
    const core::Json report{{"passed", !core::first_failure(results)}, {"checks", checks}};
    std::cout << core::json_text(report, style) << '\n';
}

} // namespace

int preflight(const PreflightOptions& options)
{
    const auto config = sys::load_config(sys::config_path());
    auto results = run_checks(options, config);
    const auto warnings = core::judge_provider_keys(config);
    results.insert(results.end(), warnings.begin(), warnings.end());
    if (options.json.empty()) {
        print_text(results);
    } else {
        print_json(results, core::json_style(options.json));
    }
    return core::first_failure(results) ? core::kExitCheckFailed : 0;
}

} // namespace nr::ctl
