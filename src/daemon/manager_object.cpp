// SPDX-License-Identifier: Apache-2.0
#include "daemon/manager_object.h"

#include "core/base/error.h"
#include "core/base/ids.h"
#include "core/base/unit_name.h"
#include "core/bus/bus_names.h"
#include "core/bus/start_options.h"
#include "core/journal/journal_fields.h"
#include "core/journal/log_event.h"
#include "core/plan/operator_authorization.h"
#include "daemon/handler_steps.h"
#include "daemon/request_log.h"
#include "sys/base/journal_writer.h"
#include "sys/bus/bus_compat.h"
#include "sys/bus/bus_options.h"
#include "sys/host/identity.h"
#include "version/version.h"

#include <memory>
#include <utility>

namespace nr::daemon {

using core::ErrorKind;
using core::fail;

namespace {

// For a call today's rule refuses: asks polkit for `action` and, once it
// answers, runs `granted` (which replies) when polkit authorized the
// caller, or replies `refusal` (today's error, unchanged) for any other
// answer, polkit's absence included. The decision and any refusal go to the
// journal. The call's reply waits in the check; the loop goes on meanwhile.
template <typename Reply, typename Granted>
void ask_polkit(sys::PolkitAuthority& polkit, const sdbus::IObject& object, const std::string& method,
                core::OperatorAction action, const core::SessionRef& ref, Reply reply, core::Error refusal,
                Granted granted)
{
    auto waiting = std::make_shared<Reply>(std::move(reply));
    const auto caller = current_caller(object);
    // Callers the bus could not name share one bound.
    polkit.check(object, caller.uid.value_or(static_cast<uid_t>(-1)), action,
                 [waiting, method, action, ref, caller, refusal = std::move(refusal),
                  granted = std::move(granted)](const core::PolkitReply& answer) {
                     sys::write_log(core::polkit_check_record(method, action, caller, ref, answer));
                     try {
                         if (!core::polkit_grants(core::polkit_outcome(answer))) {
                             throw refusal;
                         }
                         granted(*waiting, caller);
                     } catch (const core::Error& e) {
                         sys::write_log(core::refusal_record(method, caller, e, ref, false));
                         waiting->returnError(sys::to_bus_error(e));
                     } catch (const sdbus::Error& e) {
                         waiting->returnError(e);
                     } catch (const std::exception& e) {
                         waiting->returnError(sys::bus_error("org.freedesktop.DBus.Error.Failed", e.what()));
                     }
                 });
}

// A call that would outlast this helper: it has begun to exit, and systemd
// stops it once its bus name is gone, so such a call could only be cut off
// halfway. Refused before anything is done; made again, it reaches the
// helper the bus activates next.
void refuse_when_stopping(const Activity& activity)
{
    if (!activity.taking_work()) {
        fail(ErrorKind::HelperStopping, "the helper is exiting and did nothing; call again (the bus starts a new one)");
    }
}

} // namespace

ManagerObject::ManagerObject(sdbus::IConnection& connection, const core::Config& config, sys::SystemdManager& systemd,
                             const SessionRegistry& sessions, PreflightGate& gate, StartPipeline& pipeline,
                             Activity& activity)
    : AdaptorInterfaces(connection, sdbus::ObjectPath{core::kObjectPath}), config_(config), systemd_(systemd),
      sessions_(sessions), gate_(gate), pipeline_(pipeline), activity_(activity), polkit_(connection)
{
    registerAdaptor();
}

ManagerObject::~ManagerObject()
{
    unregisterAdaptor();
}

void ManagerObject::StartSession(StartReply&& result, std::string owner, std::string chat, std::string job,
                                 std::string adapter, std::vector<std::string> argv, std::string workspace,
                                 std::map<std::string, std::string> environment, std::string run_as_user,
                                 sdbus::UnixFd stdin_fd, sdbus::UnixFd stdout_fd, sdbus::UnixFd stderr_fd)
{
    activity_.touch();
    refused_as_typed_error(getObject(), "StartSession", {owner, chat, job, {}}, RequestKind::Session, [&] {
        refuse_when_stopping(activity_);
        // parse + validate: ids first, so nothing below sees a hostile name.
        core::SessionRequest request{owner, chat, job, adapter, argv, workspace, environment};
        core::validate_id(core::IdKind::Owner, owner);
        core::validate_id(core::IdKind::Chat, chat);

        // authorize: identity from the bus credentials, never the payload.
        const auto user = resolve_run_as_user(config_.callers, require_caller_uid(getObject()), run_as_user);
        // Recorded so that a later helper instance can still tie the session
        // to the connection that started it (see adopt_running_sessions).
        const auto sender = sys::caller_bus_name(getObject());
        if (!sender) {
            fail(ErrorKind::AccessDenied, "no caller bus name");
        }
        std::array<sdbus::UnixFd, 3> stdio{std::move(stdin_fd), std::move(stdout_fd), std::move(stderr_fd)};
        // The host's prerequisites, before anything is planned.
        if (gate_.ready(user)) {
            pipeline_.start(std::move(result), request, user, *sender, current_caller(getObject()), stdio);
            return;
        }
        gate_.start_canary(user);
        pipeline_.wait_for_verdict(WaitingStart{std::move(result), std::move(request), user, *sender,
                                                current_caller(getObject()), std::move(stdio)});
    });
}

void ManagerObject::StartSessionWithOptions(StartReply&& result, std::string owner, std::string chat,
                                            std::string adapter, std::vector<std::string> argv, sdbus::UnixFd stdin_fd,
                                            sdbus::UnixFd stdout_fd, sdbus::UnixFd stderr_fd,
                                            std::map<std::string, sdbus::Variant> options)
{
    auto decoded =
        refused_as_typed_error(getObject(), "StartSessionWithOptions", {owner, chat, {}, {}}, RequestKind::Session,
                               [&] { return core::decode_start_options(sys::option_values(options)); });
    StartSession(std::move(result), std::move(owner), std::move(chat), std::move(decoded.job), std::move(adapter),
                 std::move(argv), std::move(decoded.workspace), std::move(decoded.environment),
                 std::move(decoded.run_as_user), std::move(stdin_fd), std::move(stdout_fd), std::move(stderr_fd));
}

std::string ManagerObject::Version()
{
    return std::string(version::project());
}

uint32_t ManagerObject::ActiveSessions()
{
    return static_cast<uint32_t>(sessions_.size());
}

void ManagerObject::RunCanary(CanaryReply&& result, std::string run_as_user)
{
    activity_.touch();
    refused_as_typed_error(getObject(), "RunCanary", {}, RequestKind::Session, [&] {
        refuse_when_stopping(activity_);
        const auto refusal = core::Error(ErrorKind::AccessDenied, "only root may run the preflight canary");
        switch (core::run_canary_verdict(require_caller_uid(getObject()))) {
        case core::OperatorVerdict::Allowed: start_canary(std::move(result), run_as_user); return;
        case core::OperatorVerdict::Refused: throw refusal;
        case core::OperatorVerdict::AskPolkit: break;
        }
        ask_polkit(polkit_, getObject(), "RunCanary", core::OperatorAction::RunCanary, {}, std::move(result), refusal,
                   [this, run_as_user](CanaryReply& reply, const core::Caller& /*caller*/) {
                       start_canary(std::move(reply), run_as_user);
                   });
    });
}

void ManagerObject::start_canary(CanaryReply&& result, const std::string& run_as_user)
{
    gate_.start_canary(resolve_canary_user(config_.callers, run_as_user));
    pipeline_.wait_for_verdict(std::move(result));
}

void ManagerObject::StopSession(StopReply&& result, std::string owner, std::string chat)
{
    activity_.touch();
    refused_as_typed_error(getObject(), "StopSession", {owner, chat, {}, {}}, RequestKind::Session, [&] {
        core::validate_id(core::IdKind::Owner, owner);
        core::validate_id(core::IdKind::Chat, chat);
        const core::SessionRef ref{owner, chat, {}, core::session_unit_name(owner, chat)};
        const auto path = systemd_.unit_path(ref.unit);
        if (!path) {
            fail(ErrorKind::NoSuchSession, "no session for owner " + owner + " and chat " + chat);
        }
        const auto uid = require_caller_uid(getObject());
        const auto caller = core::Caller{uid, require_caller_pid(getObject())};
        const auto user = systemd_.unit_property(*path, sys::kServiceInterface, "User").get<std::string>();
        const auto refusal = core::Error(ErrorKind::AccessDenied, "the session belongs to another user");
        switch (core::stop_session_verdict(uid, user)) {
        case core::OperatorVerdict::Allowed:
            stop_session(ref, caller, {});
            result.returnResults();
            return;
        case core::OperatorVerdict::Refused: throw refusal;
        case core::OperatorVerdict::AskPolkit: break;
        }
        refuse_when_stopping(activity_);
        ask_polkit(polkit_, getObject(), "StopSession", core::OperatorAction::ManageSessions, ref, std::move(result),
                   refusal, [this, ref](StopReply& reply, const core::Caller& granted) {
                       // The session may have ended while polkit decided.
                       if (!systemd_.unit_path(ref.unit)) {
                           fail(ErrorKind::NoSuchSession,
                                "no session for owner " + ref.owner + " and chat " + ref.chat);
                       }
                       stop_session(ref, granted, "polkit");
                       reply.returnResults();
                   });
    });
}

void ManagerObject::stop_session(const core::SessionRef& ref, const core::Caller& caller, std::string_view granted_by)
{
    const auto uid = caller.uid ? std::to_string(*caller.uid) : std::string("?");
    const auto pid = caller.pid ? std::to_string(*caller.pid) : std::string("?");
    auto message = "stopping " + ref.unit + " at the request of uid " + uid + " pid " + pid;
    if (!granted_by.empty()) {
        message += " (granted by " + std::string(granted_by) + ")";
    }
    auto record = core::log_record(core::LogEvent::SessionStopped, message);
    core::add_session(record, ref);
    record.fields.emplace_back(core::kFieldStopReason, "requested");
    record.fields.emplace_back(core::kFieldCallerUid, uid);
    record.fields.emplace_back(core::kFieldCallerPid, pid);
    sys::write_log(record);
    systemd_.stop(ref.unit);
}

} // namespace nr::daemon
