// SPDX-License-Identifier: Apache-2.0
#pragma once
// The helper refuses sessions until the host passes the same preflight
// checks `native-runtimectl preflight` runs (fail closed): a missing
// prerequisite becomes Error.PreflightFailed naming the check, never a
// session with weaker isolation.
//
// The last check, the canary, goes through the real launch path: a
// transient unit planned like a session (core::plan_canary) whose launcher
// claims its spec from this helper, applies Landlock and the seccomp
// program and runs /usr/bin/true in bwrap. Because that claim is a call to
// this very helper, the canary never blocks the bus: it is started, and
// its end, which systemd signals, is read by poll() from the helper's
// housekeeping. A pass is kept for the boot (sys/preflight/canary_cache.h), so later
// activations skip it.

#include "core/config/config.h"
#include "core/ops/preflight.h"
#include "core/plan/session_plan.h"
#include "daemon/claim_table.h"
#include "daemon/session_registry.h"
#include "sys/base/unique_fd.h"
#include "sys/systemd/systemd_manager.h"

#include <sdbus-c++/sdbus-c++.h>

#include <chrono>
#include <optional>
#include <string>

namespace nr::daemon {

class PreflightGate {
public:
    PreflightGate(sdbus::IConnection& connection, const core::Config& config, std::string launcher_path,
                  std::string config_path, ClaimTable& claims);

    // True when sessions may start now: the quick checks pass and a canary
    // passed in this instance or, with the same inputs, earlier in this
    // boot. False when the canary must run first (start_canary). Throws
    // core::Error(PreflightFailed) "<check>: detail (hint: ...)".
    bool ready(const core::RunAsUser& user);

    // Starts the canary as `user` unless one is running. Its verdict comes
    // from poll().
    void start_canary(const core::RunAsUser& user);
    [[nodiscard]] bool canary_running() const { return running_.has_value() || verdict_.has_value(); }

    // The canary's verdict once its unit has ended, else nullopt. A pass is
    // remembered (here and in the per-boot cache); a failure forgets any
    // earlier pass, so sessions wait for the next canary.
    std::optional<core::CheckResult> poll();
    // When poll() next has something to do that no bus event announces:
    // the canary's deadline, or draining its output. nullopt when no
    // canary runs.
    [[nodiscard]] std::optional<std::chrono::steady_clock::time_point>
    next_wakeup(std::chrono::steady_clock::time_point now) const;

private:
    struct RunningCanary {
        std::string token;
        sdbus::ObjectPath path;
        sys::UniqueFd output;
        std::string text;
        std::string record;
        std::chrono::steady_clock::time_point deadline;
    };
    std::string current_record();
    // StartTransientUnit of the canary, waiting (bounded) while systemd
    // still holds the previous one's name.
    void start_canary_unit(const core::UnitProperties& properties, const sys::UnitDescriptors& descriptors);
    // Stops a canary an earlier helper instance left running.
    void stop_leftover_canary();
    // The canary's spec over its helper channel (systemd >= 257).
    void send_canary_spec(const std::string& token, int helper_end);
    core::CheckResult finish(const core::CanaryOutcome& outcome, const std::string& record);

    sys::SystemdManager systemd_;
    const core::Config& config_;
    std::string launcher_path_;
    std::string config_path_;
    ClaimTable& claims_;
    SessionRegistry watch_;
    std::optional<RunningCanary> running_;
    std::optional<core::CheckResult> verdict_; // of a canary that could not start
    bool passed_ = false;
};

} // namespace nr::daemon
