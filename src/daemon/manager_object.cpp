// SPDX-License-Identifier: Apache-2.0
#include "daemon/manager_object.h"

#include "core/base/error.h"
#include "core/base/ids.h"
#include "core/base/unit_name.h"
#include "core/bus/bus_names.h"
#include "core/bus/start_options.h"
#include "core/journal/journal_fields.h"
#include "core/journal/log_event.h"
#include "daemon/handler_steps.h"
#include "daemon/request_log.h"
#include "sys/base/journal_writer.h"
#include "sys/bus/bus_compat.h"
#include "sys/bus/bus_options.h"
#include "sys/host/identity.h"
#include "version/version.h"

namespace nr::daemon {

using core::ErrorKind;
using core::fail;

ManagerObject::ManagerObject(sdbus::IConnection& connection, const core::Config& config, sys::SystemdManager& systemd,
                             const SessionRegistry& sessions, PreflightGate& gate, StartPipeline& pipeline,
                             Activity& activity)
    : AdaptorInterfaces(connection, sdbus::ObjectPath{core::kObjectPath}), config_(config), systemd_(systemd),
      sessions_(sessions), gate_(gate), pipeline_(pipeline), activity_(activity)
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
        if (require_caller_uid(getObject()) != 0) {
            fail(ErrorKind::AccessDenied, "only root may run the preflight canary");
        }
        auto name = run_as_user;
        if (name.empty()) {
            name = !config_.callers.run_as_users.empty() ? config_.callers.run_as_users.front()
                   : !config_.callers.users.empty()      ? config_.callers.users.front()
                                                         : std::string("nobody");
        }
        const auto user = sys::lookup_user(name);
        if (!user || user->uid == 0) {
            fail(ErrorKind::InvalidArgument, "canary user " + name + " does not exist or is root");
        }
        gate_.start_canary(*user);
        pipeline_.wait_for_verdict(std::move(result));
    });
}

void ManagerObject::StopSession(const std::string& owner, const std::string& chat)
{
    activity_.touch();
    refused_as_typed_error(getObject(), "StopSession", {owner, chat, {}, {}}, RequestKind::Session, [&] {
        core::validate_id(core::IdKind::Owner, owner);
        core::validate_id(core::IdKind::Chat, chat);
        const auto unit = core::session_unit_name(owner, chat);
        const auto path = systemd_.unit_path(unit);
        if (!path) {
            fail(ErrorKind::NoSuchSession, "no session for owner " + owner + " and chat " + chat);
        }
        const auto caller = require_caller_uid(getObject());
        require_session_access(systemd_, *path, caller, core::SessionAccess::OwnerOrRoot,
                               "the session belongs to another user");
        const auto pid = require_caller_pid(getObject());
        auto record = core::log_record(core::LogEvent::SessionStopped, "stopping " + unit + " at the request of uid " +
                                                                           std::to_string(caller) + " pid " +
                                                                           std::to_string(pid));
        core::add_session(record, {owner, chat, {}, unit});
        record.fields.emplace_back(core::kFieldStopReason, "requested");
        record.fields.emplace_back(core::kFieldCallerUid, std::to_string(caller));
        record.fields.emplace_back(core::kFieldCallerPid, std::to_string(pid));
        sys::write_log(record);
        systemd_.stop(unit);
    });
}

} // namespace nr::daemon
