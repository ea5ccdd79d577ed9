// SPDX-License-Identifier: Apache-2.0
#include "daemon/handler_steps.h"

#include "core/base/error.h"
#include "core/journal/log_event.h"
#include "sys/base/journal_writer.h"
#include "sys/bus/bus_compat.h"
#include "sys/host/identity.h"

namespace nr::daemon {

using core::ErrorKind;
using core::fail;

uid_t require_caller_uid(const sdbus::IObject& object)
{
    const auto id = sys::caller_uid(object);
    if (!id) {
        fail(ErrorKind::AccessDenied, "no caller credentials");
    }
    return *id;
}

pid_t require_caller_pid(const sdbus::IObject& object)
{
    const auto id = sys::caller_pid(object);
    if (!id) {
        fail(ErrorKind::AccessDenied, "no caller credentials");
    }
    return *id;
}

core::RunAsUser resolve_run_as_user(const core::CallerPolicy& policy, uid_t caller_uid, const std::string& requested)
{
    const auto name = core::decide_run_as_user(policy, sys::lookup_caller(caller_uid), requested);
    const auto user = sys::lookup_user(name);
    if (!user) {
        fail(ErrorKind::AccessDenied, "run-as user " + name + " does not exist");
    }
    return *user;
}

core::RunAsUser resolve_canary_user(const core::CallerPolicy& policy, const std::string& requested)
{
    const auto name = core::canary_user_name(policy, requested);
    const auto user = sys::lookup_user(name);
    if (!user || user->uid == 0) {
        fail(ErrorKind::InvalidArgument, "canary user " + name + " does not exist or is root");
    }
    return *user;
}

void log_trouble(const std::string& unit, const std::string& message)
{
    auto record = core::log_record(core::LogEvent::HelperTrouble, message);
    core::add_session(record, core::SessionRef{{}, {}, {}, unit});
    sys::write_log(record);
}

StartRollback::StartRollback(ClaimTable& claims, SessionRegistry& sessions, sys::SystemdManager& systemd,
                             std::string token, std::string unit)
    : claims_(claims), sessions_(sessions), systemd_(systemd), token_(std::move(token)), unit_(std::move(unit))
{
}

StartRollback::~StartRollback()
{
    if (armed_) {
        undo_start(claims_, sessions_, systemd_, token_, unit_, std::nullopt);
    }
}

void undo_start(ClaimTable& claims, SessionRegistry& sessions, sys::SystemdManager& systemd, const std::string& token,
                const std::string& unit, const std::optional<sdbus::ObjectPath>& started) noexcept
{
    // Runs while a start's error unwinds: must not throw.
    try {
        // The spec first: the launcher of a unit being undone never gets it.
        claims.remove(token);
        sessions.forget(unit);
        if (!started) {
            return;
        }
        try {
            systemd.stop(unit);
        } catch (const std::exception& e) {
            log_trouble(unit, "could not stop " + unit + ": " + e.what());
        }
        systemd.unref(*started);
    } catch (...) {
        // Nothing left to do: the unit's end is reported by housekeeping if
        // it is still watched, and systemd collects it once released.
    }
}

} // namespace nr::daemon
