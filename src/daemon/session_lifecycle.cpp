// SPDX-License-Identifier: Apache-2.0
#include "daemon/session_lifecycle.h"

#include "core/base/error.h"
#include "core/base/unit_name.h"
#include "core/base/unit_state.h"
#include "core/journal/journal_fields.h"
#include "core/journal/log_event.h"
#include "daemon/handler_steps.h"
#include "sys/base/journal_writer.h"

namespace nr::daemon {

SessionLifecycle::SessionLifecycle(sdbus::IConnection& connection, const core::Config& config,
                                   sys::SystemdManager& systemd, ClaimTable& claims, SessionRegistry& sessions,
                                   GatewayRegistrations& gateways, EndReport report)
    : config_(config), systemd_(systemd), claims_(claims), sessions_(sessions), gateways_(gateways),
      report_(std::move(report)), workers_(connection)
{
    systemd_.subscribe();
}

void SessionLifecycle::adopt_running_sessions()
{
    for (const auto& unit : systemd_.list_units({std::string(core::kUnitPrefix) + "*.service"})) {
        if (!core::is_session_unit_name(unit.name) || sessions_.contains(unit.name)) {
            continue;
        }
        const auto fields = systemd_.log_extra_fields(unit.path);
        const auto owner = core::journal_field(fields, core::kFieldOwner);
        const auto chat = core::journal_field(fields, core::kFieldChat);
        if (core::session_unit_name(owner, chat) != unit.name) {
            continue; // not one of ours, whatever its name says
        }
        // Hold the unit like AddRef= did for the instance that started it,
        // so its result survives until it has been reported.
        systemd_.ref(unit.path);
        sessions_.track(unit.name, unit.path, owner, chat, core::journal_field(fields, core::kFieldJob));
        // Registered by the instance that started it, if it got that far:
        // revoking a unit the gateway does not know is harmless.
        if (gateway_adapter(config_, core::journal_field(fields, core::kFieldAdapter)) != nullptr) {
            gateways_.adopt(unit.name);
        }
        if (core::is_stopped_state(unit.active_state)) {
            sessions_.mark_finished(unit.name);
            continue;
        }
        // A worker that left while no helper was running is gone all the
        // same: watch() finds it absent and the session is stopped.
        bind_to_worker(core::journal_field(fields, core::kFieldAdapter),
                       core::journal_field(fields, core::kFieldWorker), unit.name);
    }
}

void SessionLifecycle::bind_to_worker(const std::string& adapter, const std::string& worker, const std::string& unit)
{
    const auto profile = config_.adapters.find(adapter);
    if (worker.empty() || profile == config_.adapters.end() || profile->second.keep_on_worker_disconnect) {
        return;
    }
    workers_.watch(worker, unit);
}

bool SessionLifecycle::report_ended_sessions()
{
    bool any = false;
    for (const auto& unit : sessions_.take_candidates()) {
        // Confirmed while still tracked: a change that arrives during the
        // check is queued and makes the unit a candidate again.
        const auto* session = sessions_.find(unit);
        if (session == nullptr || !has_ended(*session)) {
            continue;
        }
        report_end(sessions_.release(unit));
        any = true;
    }
    return any;
}

void SessionLifecycle::stop_orphaned_sessions()
{
    for (const auto& unit : workers_.take_orphaned()) {
        const auto* session = sessions_.find(unit);
        if (session == nullptr) {
            continue;
        }
        auto record = core::log_record(core::LogEvent::SessionStopped,
                                       "stopping " + unit + ": the worker that started it left the bus");
        core::add_session(record, {session->owner, session->chat, session->job, unit});
        record.fields.emplace_back(core::kFieldStopReason, "worker-left");
        sys::write_log(record);
        try {
            systemd_.stop(unit);
        } catch (const core::Error& e) {
            log_trouble(unit, "could not stop " + unit + ": " + e.what());
        }
    }
}

bool SessionLifecycle::has_ended(const TrackedSession& session)
{
    try {
        return systemd_.unit_ended(session.path);
    } catch (const core::Error& e) {
        // A failed read is not an end: only a unit systemd no longer knows
        // is. Ending a live session here would withdraw its launch spec.
        log_trouble(session.unit, "could not read the state of " + session.unit + ": " + e.what());
        return !systemd_.unit_path(session.unit).has_value();
    }
}

void SessionLifecycle::report_end(const TrackedSession& session)
{
    sys::UnitEnd end;
    try {
        end = systemd_.read_end(session.path);
    } catch (const core::Error&) {
        end.result = "unknown";
    }
    core::SessionEnd logged{end.result,     end.code,          end.status, end.runtime_usec, end.memory_peak_bytes,
                            end.tasks_peak, end.cpu_usage_nsec};
    sys::write_log(core::session_end_record({session.owner, session.chat, session.job, session.unit}, logged));
    claims_.remove_unit(session.unit);
    gateways_.revoke(session.unit);
    workers_.forget(session.unit);
    report_(session, end);
    systemd_.unref(session.path);
}

} // namespace nr::daemon
