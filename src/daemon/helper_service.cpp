// SPDX-License-Identifier: Apache-2.0
#include "daemon/helper_service.h"

#include "core/base/error.h"
#include "core/journal/log_event.h"
#include "daemon/handler_steps.h"
#include "sys/base/journal_writer.h"

namespace nr::daemon {

HelperService::HelperService(sdbus::IConnection& connection, core::Config config, std::string launcher_path,
                             std::string config_path)
    : config_(std::move(config)), launcher_path_(std::move(launcher_path)), config_path_(std::move(config_path)),
      systemd_(connection), sessions_(connection), gate_(connection, config_, launcher_path_, config_path_, claims_),
      gateways_(config_),
      channels_(claims_, sessions_, gateways_,
                [this](const TrackedSession& session, std::uint32_t ahead) { report_waiting(session, ahead); }),
      lifecycle_(connection, config_, systemd_, claims_, sessions_, gateways_,
                 [this](const TrackedSession& session, const sys::UnitEnd& end) {
                     manager_.emitSessionEnded(session.unit, session.owner, session.chat, session.job, end.result,
                                               end.code, end.status);
                 }),
      pipeline_(
          connection, config_, launcher_path_, systemd_, claims_, sessions_,
          [this](const std::string& adapter, const std::string& worker, const std::string& unit) {
              lifecycle_.bind_to_worker(adapter, worker, unit);
          },
          [this](const std::string& unit, uid_t uid, const std::string& token, sys::UniqueFd end) {
              channels_.keep(unit, uid, token, std::move(end));
          }),
      manager_(connection, config_, systemd_, sessions_, gate_, pipeline_, activity_),
      launcher_(connection, claims_, pipeline_, activity_)
{
}

void HelperService::check_host_before_the_first_call()
{
    try {
        const auto user = resolve_canary_user(config_.callers, {});
        if (!gate_.ready(user)) {
            gate_.start_canary(user);
        }
    } catch (const core::Error& e) {
        // A failed check was logged by the gate; anything else is said here.
        if (e.kind() != core::ErrorKind::PreflightFailed) {
            sys::write_log(core::log_record(core::LogEvent::HelperTrouble,
                                            std::string("the checks at start did not run: ") + e.what()));
        }
    } catch (const sdbus::Error& e) {
        sys::write_log(core::log_record(core::LogEvent::HelperTrouble,
                                        "the checks at start did not run: " + e.getName() + ": " + e.getMessage()));
    } catch (const std::exception& e) {
        // The first call runs them again; the helper still serves.
        sys::write_log(core::log_record(core::LogEvent::HelperTrouble,
                                        std::string("the checks at start did not run: ") + e.what()));
    }
}

void HelperService::report_waiting(const TrackedSession& session, std::uint32_t ahead)
{
    manager_.emitSessionWaiting(session.unit, session.owner, session.chat, session.job, ahead);
}

void HelperService::housekeeping()
{
    if (const auto verdict = gate_.poll()) {
        pipeline_.release_waiting(*verdict);
        activity_.touch();
    }
    pipeline_.finish_ready_starts();
    channels_.serve();
    if (lifecycle_.report_ended_sessions()) {
        activity_.touch();
    }
    lifecycle_.stop_orphaned_sessions();
    claims_.drop_expired(std::chrono::steady_clock::now());
    pipeline_.settle_parked_claims();
}

bool HelperService::unoccupied() const
{
    return sessions_.empty() && claims_.empty() && channels_.empty() && !gate_.canary_running() && pipeline_.empty() &&
           manager_.authorizations_pending() == 0;
}

bool HelperService::idle(std::chrono::steady_clock::time_point now) const
{
    return config_.idle_timeout_sec && unoccupied() &&
           now - activity_.last() >= std::chrono::seconds(*config_.idle_timeout_sec);
}

std::optional<std::chrono::steady_clock::time_point>
HelperService::next_wakeup(std::chrono::steady_clock::time_point now) const
{
    std::optional<std::chrono::steady_clock::time_point> earliest;
    const auto consider = [&](std::optional<std::chrono::steady_clock::time_point> deadline) {
        if (deadline && (!earliest || *deadline < *earliest)) {
            earliest = deadline;
        }
    };
    consider(claims_.next_deadline());
    consider(gate_.next_wakeup(now));
    if (config_.idle_timeout_sec && unoccupied()) {
        consider(activity_.last() + std::chrono::seconds(*config_.idle_timeout_sec));
    }
    return earliest;
}

} // namespace nr::daemon
