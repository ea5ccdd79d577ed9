#include "daemon/preflight_gate.h"

#include "core/error.h"
#include "core/log_event.h"
#include "core/preflight.h"
#include "sys/journal_writer.h"
#include "sys/preflight.h"

#ifndef NR_HELPER_PATH
#error "NR_HELPER_PATH must be defined by the build"
#endif
#ifndef NR_WORKER_GROUP
#error "NR_WORKER_GROUP must be defined by the build"
#endif

namespace nr::daemon {

PreflightGate::PreflightGate(sdbus::IConnection& connection, const core::Config& config, std::string launcher_path)
    : systemd_(connection), config_(config), launcher_path_(std::move(launcher_path))
{
}

void PreflightGate::require(const core::RunAsUser& user)
{
    if (passed_) {
        return;
    }
    // The user-namespace check is left to the canary: the helper's own unit
    // (RestrictNamespaces=yes) may not unshare, the canary's unit may.
    std::vector<core::CheckResult> results{
        sys::check_bwrap(config_),
        sys::check_protected_hardlinks(),
        sys::check_systemd_version(systemd_),
        sys::check_snapshot_dir(config_, NR_WORKER_GROUP),
    };
    auto principals = sys::session_principals(config_);
    principals.push_back(user.name);
    results.push_back(sys::check_immutable(config_, {launcher_path_, NR_HELPER_PATH}, principals));
    // Only units the operator configured can be checked from here.
    if (!config_.app_units.empty()) {
        results.push_back(
            sys::check_dropins(systemd_, config_.app_units, {config_.snapshot_dir, NR_WORKER_GROUP, config_.data_dir}));
    }
    if (!core::first_failure(results)) {
        results.push_back(sys::check_canary(systemd_, config_, user, launcher_path_));
    }
    if (const auto failed = core::first_failure(results)) {
        // The host's state, at error: every request fails until it is
        // fixed. Each refused request gets its own warning besides.
        auto record = core::log_record(core::LogEvent::PreflightFailed, "preflight check " + failed->name +
                                                                            " failed: " + failed->detail + " (" +
                                                                            failed->hint + ")");
        record.priority = core::Priority::Error;
        record.fields.emplace_back("NATIVE_RUNTIME_PREFLIGHT", failed->name);
        sys::write_log(record);
        core::fail(core::ErrorKind::PreflightFailed,
                   failed->name + ": " + failed->detail + " (hint: " + failed->hint + ")");
    }
    passed_ = true;
}

} // namespace nr::daemon
