// SPDX-License-Identifier: Apache-2.0
#include "daemon/preflight_gate.h"

#include "core/base/error.h"
#include "core/journal/journal_fields.h"
#include "core/journal/log_event.h"
#include "core/launch/launcher_args.h"
#include "core/ops/preflight.h"
#include "daemon/handler_steps.h"
#include "sys/base/journal_writer.h"
#include "sys/base/launch_channel.h"
#include "sys/host/host_facts.h"
#include "sys/preflight/canary_cache.h"
#include "sys/preflight/preflight.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <thread>

#ifndef NR_HELPER_PATH
#error "NR_HELPER_PATH must be defined by the build"
#endif
#ifndef NR_SUPERVISOR_PATH
#error "NR_SUPERVISOR_PATH must be defined by the build"
#endif
#ifndef NR_WORKER_GROUP
#error "NR_WORKER_GROUP must be defined by the build"
#endif

namespace nr::daemon {

namespace {

constexpr auto kCanaryBusyLimit = std::chrono::seconds(10);
constexpr auto kBusyPollInterval = std::chrono::milliseconds(20);
// The unit's own RuntimeMaxSec= ends it first; this is for a unit that
// never starts at all.
constexpr auto kCanaryLimit = std::chrono::seconds(core::kCanaryRuntimeMaxSec + 10);
constexpr auto kCanaryClaimDeadline = std::chrono::seconds(core::kCanaryRuntimeMaxSec + 10);
constexpr std::size_t kMaxOutput = std::size_t{16} * 1024;
// The loop does not watch the canary's pipe, so while the canary runs it
// drains it this often: a canary that writes more than the pipe holds
// must not stall until its RuntimeMaxSec= ends it.
constexpr auto kDrainInterval = std::chrono::seconds(1);

// Drains `fd` (non-blocking) into `out`, keeping at most kMaxOutput bytes.
void drain(int fd, std::string& out)
{
    std::array<char, 4096> buf{};
    for (;;) {
        const auto got = ::read(fd, buf.data(), buf.size());
        if (got <= 0) {
            return;
        }
        out.append(buf.data(), std::min(static_cast<std::size_t>(got), kMaxOutput - std::min(kMaxOutput, out.size())));
    }
}

// The host's state, at error: every request fails until it is fixed. Each
// refused request gets its own warning besides.
void log_failure(const core::CheckResult& failed)
{
    auto record =
        core::log_record(core::LogEvent::PreflightFailed,
                         "preflight check " + failed.name + " failed: " + failed.detail + " (" + failed.hint + ")");
    record.priority = core::Priority::Error;
    record.fields.emplace_back(core::kFieldPreflight, failed.name);
    sys::write_log(record);
}

void log_canary(const std::string& message, const std::string& state)
{
    auto record = core::log_record(core::LogEvent::PreflightCanary, message);
    record.fields.emplace_back(core::kFieldPreflightCanary, state);
    sys::write_log(record);
}

} // namespace

PreflightGate::PreflightGate(sdbus::IConnection& connection, const core::Config& config, std::string launcher_path,
                             std::string config_path, ClaimTable& claims)
    : systemd_(connection), config_(config), launcher_path_(std::move(launcher_path)),
      config_path_(std::move(config_path)), claims_(claims), watch_(connection)
{
}

std::string PreflightGate::current_record()
{
    std::string version;
    try {
        version = systemd_.manager_property("Version").get<std::string>();
    } catch (const core::Error& e) {
        version = std::string("unreadable: ") + e.what();
    }
    return core::canary_cache_record(
        sys::observe_canary_inputs(config_path_,
                                   {NR_HELPER_PATH, launcher_path_, core::claim_path_beside(launcher_path_),
                                    NR_SUPERVISOR_PATH, config_.bwrap_path},
                                   version));
}

bool PreflightGate::ready(const core::RunAsUser& user)
{
    if (passed_) {
        return true;
    }
    // The user-namespace and Landlock checks are left to the canary: the
    // helper's own unit (RestrictNamespaces=yes, SystemCallFilter=) may not
    // unshare or call landlock_*, the canary's unit may.
    std::vector<core::CheckResult> results{
        sys::check_bwrap(config_),
        sys::check_protected_hardlinks(),
        sys::check_systemd_version(systemd_),
        sys::check_snapshot_dir(config_, NR_WORKER_GROUP),
    };
    auto principals = sys::session_principals(config_);
    principals.push_back(user.name);
    results.push_back(sys::check_immutable(
        config_, {launcher_path_, core::claim_path_beside(launcher_path_), NR_SUPERVISOR_PATH, NR_HELPER_PATH},
        principals));
    // Only units the operator configured can be checked from here.
    if (!config_.app_units.empty()) {
        results.push_back(
            sys::check_dropins(systemd_, config_.app_units, {config_.snapshot_dir, NR_WORKER_GROUP, config_.data_dir}));
    }
    if (const auto failed = core::first_failure(results)) {
        log_failure(*failed);
        core::fail(core::ErrorKind::PreflightFailed,
                   failed->name + ": " + failed->detail + " (hint: " + failed->hint + ")");
    }
    if (sys::read_canary_cache() == current_record()) {
        log_canary("preflight canary: a pass earlier in this boot with the same inputs stands", "cached");
        passed_ = true;
    }
    return passed_;
}

void PreflightGate::start_canary_unit(const core::UnitProperties& properties, const sys::UnitDescriptors& descriptors)
{
    // systemd collects the previous canary (ours, or one of an earlier
    // helper instance) asynchronously after its Unref: wait for the name.
    const auto busy_deadline = std::chrono::steady_clock::now() + kCanaryBusyLimit;
    bool stopped_leftover = false;
    for (;;) {
        try {
            systemd_.start_transient(core::kCanaryUnit, properties, descriptors);
            return;
        } catch (const core::Error& e) {
            if (e.kind() != core::ErrorKind::SessionBusy || std::chrono::steady_clock::now() > busy_deadline) {
                throw;
            }
        }
        if (!stopped_leftover) {
            stop_leftover_canary();
            stopped_leftover = true;
        }
        std::this_thread::sleep_for(kBusyPollInterval);
    }
}

void PreflightGate::stop_leftover_canary()
{
    // No canary of this instance runs (start_canary checks), so one still
    // running was started by an earlier helper that exited during it. On
    // systemd < 257 its launcher may wait for a Claim that only this
    // helper, blocked in this wait, could answer: it is stopped, not
    // waited for. One that has ended only waits to be collected.
    try {
        const auto path = systemd_.unit_path(core::kCanaryUnit);
        if (!path) {
            return;
        }
        const auto state = systemd_.unit_property(*path, sys::kUnitInterface, "ActiveState").get<std::string>();
        if (state == "inactive" || state == "failed") {
            return;
        }
        systemd_.stop(core::kCanaryUnit);
        log_canary(std::string("preflight canary: stopped ") + core::kCanaryUnit +
                       ", left running by an earlier helper instance",
                   "stopped-leftover");
    } catch (const core::Error&) {
        // Gone meanwhile: the name is free or about to be.
    } catch (const sdbus::Error&) {
        // Collected between the lookup and the read: the same.
    }
}

void PreflightGate::send_canary_spec(const std::string& token, int helper_end)
{
    const auto spec = claims_.take_for_channel(token);
    if (!spec) {
        core::fail(core::ErrorKind::PreflightFailed, "the canary's launch spec is gone before it was sent");
    }
    sys::send_launch_spec(helper_end, *spec);
}

void PreflightGate::start_canary(const core::RunAsUser& user)
{
    if (running_ || verdict_) {
        return;
    }
    RunningCanary run;
    run.record = current_record();
    try {
        const auto command = sys::canary_command(config_);
        if (command.empty()) {
            core::fail(core::ErrorKind::PreflightFailed, "no read-only grant contains /usr/bin/true to run");
        }
        run.token = ClaimTable::new_token();
        const auto plan = core::plan_canary(config_, user, sys::observe_host(launcher_path_, systemd_.spec_delivery()),
                                            run.token, command);
        const bool by_channel = core::find_property(plan.properties, "ExtraFileDescriptors") != nullptr;
        const auto channel = sys::new_launch_channel_if(by_channel);
        std::array<int, 2> pipe_fds{};
        if (::pipe2(pipe_fds.data(), O_CLOEXEC | O_NONBLOCK) != 0) {
            core::fail(core::ErrorKind::SystemdFailure, "pipe failed");
        }
        run.output = sys::UniqueFd(pipe_fds[0]);
        const sys::UniqueFd write_end(pipe_fds[1]);
        const sys::UniqueFd null_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
        run.path = sys::unit_object_path(core::kCanaryUnit);
        StartRollback rollback(claims_, watch_, systemd_, run.token, core::kCanaryUnit);
        // Confirmed from the start: the canary has no read-back of its own;
        // its run is the check.
        claims_.add(run.token, PendingLaunch{core::kCanaryUnit, user.uid, plan.launch,
                                             std::chrono::steady_clock::now() + kCanaryClaimDeadline, true,
                                             std::nullopt, by_channel});
        watch_.track(core::kCanaryUnit, run.path, "", "", "");
        start_canary_unit(plan.properties,
                          sys::UnitDescriptors{{sdbus::UnixFd(null_fd.get()), sdbus::UnixFd(write_end.get()),
                                                sdbus::UnixFd(write_end.get())},
                                               channel.unit_end.get()});
        if (by_channel) {
            send_canary_spec(run.token, channel.helper_end.get());
        }
        rollback.commit();
    } catch (const core::Error& e) {
        core::CanaryOutcome outcome;
        outcome.start_error = e.what();
        verdict_ = finish(outcome, run.record);
        return;
    }
    run.deadline = std::chrono::steady_clock::now() + kCanaryLimit;
    log_canary(std::string("preflight canary: started ") + core::kCanaryUnit + " as uid " + std::to_string(user.uid),
               "started");
    running_ = std::move(run);
}

std::optional<core::CheckResult> PreflightGate::poll()
{
    if (verdict_) {
        auto verdict = std::move(verdict_);
        verdict_.reset();
        return verdict;
    }
    if (!running_) {
        return std::nullopt;
    }
    auto& run = *running_;
    drain(run.output.get(), run.text);
    // Only a signalled stop (confirmed below: a queued start is "inactive"
    // too) or the deadline is worth a call to PID 1.
    const bool stopped = !watch_.take_candidates().empty();
    const bool overdue = std::chrono::steady_clock::now() > run.deadline;
    if (!stopped && !overdue) {
        return std::nullopt;
    }
    core::CanaryOutcome outcome;
    outcome.started = true;
    try {
        if (!systemd_.unit_ended(run.path)) {
            if (!overdue) {
                return std::nullopt;
            }
            systemd_.stop(core::kCanaryUnit);
            outcome.result = "preflight-timeout";
        }
        const auto end = systemd_.read_end(run.path);
        if (outcome.result.empty()) {
            outcome.result = end.result;
        }
        outcome.exit_status = end.status;
        systemd_.unref(run.path);
    } catch (const core::Error& e) {
        outcome.result = std::string("unknown (") + e.what() + ")";
    }
    drain(run.output.get(), run.text);
    outcome.output = run.text;
    claims_.remove(run.token);
    watch_.forget(core::kCanaryUnit);
    const auto record = run.record;
    running_.reset();
    return finish(outcome, record);
}

std::optional<std::chrono::steady_clock::time_point>
PreflightGate::next_wakeup(std::chrono::steady_clock::time_point now) const
{
    if (verdict_) {
        return now;
    }
    if (!running_) {
        return std::nullopt;
    }
    // Just past the deadline: poll() stops the canary once it is exceeded.
    return std::min(now + kDrainInterval, running_->deadline + std::chrono::milliseconds(1));
}

core::CheckResult PreflightGate::finish(const core::CanaryOutcome& outcome, const std::string& record)
{
    auto result = core::judge_canary(outcome);
    if (result.passed) {
        passed_ = true;
        const bool kept = sys::write_canary_cache(record);
        log_canary(std::string("preflight canary passed") + (kept ? "" : " (could not record it for this boot)"),
                   "passed");
    } else {
        passed_ = false;
        sys::remove_canary_cache();
        log_failure(result);
    }
    return result;
}

} // namespace nr::daemon
