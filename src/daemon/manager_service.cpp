#include "daemon/manager_service.h"

#include "core/base/error.h"
#include "core/base/ids.h"
#include "core/base/unit_name.h"
#include "core/base/unit_state.h"
#include "core/bus/bus_names.h"
#include "core/bus/start_options.h"
#include "core/journal/journal_fields.h"
#include "core/plan/caller_policy.h"
#include "core/plan/gateway_plan.h"
#include "core/plan/hardening_check.h"
#include "core/plan/owner_slice.h"
#include "core/plan/session_plan.h"
#include "daemon/handler_steps.h"
#include "daemon/request_log.h"
#include "sys/base/journal_writer.h"
#include "sys/base/random_token.h"
#include "sys/bus/bus_compat.h"
#include "sys/bus/bus_options.h"
#include "sys/fs/safe_dirs.h"
#include "sys/host/host_facts.h"
#include "sys/host/identity.h"
#include "sys/net/gateway_control.h"
#include "sys/systemd/effective_properties.h"
#include "sys/systemd/unit_settings.h"
#include "version/version.h"

#include <systemd/sd-login.h>

#include <sys/socket.h>

#include <cstdlib>

namespace nr::daemon {

namespace {

using core::ErrorKind;
using core::fail;

constexpr auto kClaimDeadline = std::chrono::seconds(120);
// The gateway is socket-activated: the first registration may wait for
// its start. A revoke must not hold the helper's loop up for long.
constexpr auto kGatewayRegisterTimeout = std::chrono::seconds(10);
constexpr auto kGatewayRevokeTimeout = std::chrono::seconds(2);
constexpr std::size_t kGatewayTokenBytes = 32;

const core::AdapterProfile* gateway_adapter(const core::Config& config, const std::string& name)
{
    const auto it = config.adapters.find(name);
    return it != config.adapters.end() && it->second.network == core::NetworkMode::Gateway ? &it->second : nullptr;
}

// What the launcher hands over must be what the gateway expects to accept
// on: a listening TCP/IPv4 socket (the launcher's, on 127.0.0.1 in the
// session's namespace). Anything else is refused before the gateway sees it.
void require_listening_tcp_socket(int fd)
{
    const auto option = [fd](int name) {
        int value = -1;
        socklen_t size = sizeof(value);
        return getsockopt(fd, SOL_SOCKET, name, &value, &size) == 0 ? value : -1;
    };
    if (option(SO_DOMAIN) != AF_INET || option(SO_TYPE) != SOCK_STREAM || option(SO_ACCEPTCONN) != 1) {
        fail(ErrorKind::LaunchFailed, "the handed-over descriptor is not a listening TCP socket");
    }
}
constexpr const char* kSliceInterface = "org.freedesktop.systemd1.Slice";

std::string unit_of_pid(pid_t pid)
{
    char* unit = nullptr;
    if (sd_pid_get_unit(pid, &unit) < 0 || unit == nullptr) {
        return {};
    }
    std::string out(unit);
    std::free(unit); // NOLINT(cppcoreguidelines-no-malloc): owned by libsystemd
    return out;
}

} // namespace

ManagerService::ManagerService(sdbus::IConnection& connection, core::Config config, std::string launcher_path,
                               std::string config_path)
    : AdaptorInterfaces(connection, sdbus::ObjectPath{core::kObjectPath}), connection_(connection),
      config_(std::move(config)), launcher_path_(std::move(launcher_path)), systemd_(connection), sessions_(connection),
      workers_(connection), last_activity_(std::chrono::steady_clock::now()), config_path_(std::move(config_path))
{
    systemd_.subscribe();
    registerAdaptor();
}

ManagerService::~ManagerService()
{
    // A helper stopped while calls still wait for the canary answers them.
    release_waiting({core::kCheckCanary, false, "the helper stopped before the canary ended",
                     "retry; see `journalctl -u native-runtimed`"});
    // Starts whose hardening was never confirmed are undone, and their
    // callers (and launchers) told so.
    for (auto& start : in_flight_) {
        undo_start(claims_, sessions_, systemd_, start.token, start.unit, start.started());
        const core::Error stopped(ErrorKind::SystemdFailure,
                                  "the helper stopped before the hardening of " + start.unit + " was confirmed");
        sys::write_log(core::refusal_record("StartSession", start.caller, stopped,
                                            {start.request.owner, start.request.chat, start.request.job, {}}, false));
        start.reply.returnError(sys::to_bus_error(stopped));
    }
    in_flight_.clear();
    settle_parked_claims();
    unregisterAdaptor();
}

uid_t ManagerService::caller_uid() const
{
    return require_caller_uid(getObject());
}

pid_t ManagerService::caller_pid() const
{
    return require_caller_pid(getObject());
}

void ManagerService::touch()
{
    last_activity_ = std::chrono::steady_clock::now();
}

void ManagerService::StartSession(StartReply&& result, std::string owner, std::string chat, std::string job,
                                  std::string adapter, std::vector<std::string> argv, std::string workspace,
                                  std::map<std::string, std::string> environment, std::string run_as_user,
                                  sdbus::UnixFd stdin_fd, sdbus::UnixFd stdout_fd, sdbus::UnixFd stderr_fd)
{
    touch();
    refused_as_typed_error(getObject(), "StartSession", {owner, chat, job, {}}, RequestKind::Session, [&] {
        // parse + validate: ids first, so nothing below sees a hostile name.
        core::SessionRequest request{owner, chat, job, adapter, argv, workspace, environment};
        core::validate_id(core::IdKind::Owner, owner);
        core::validate_id(core::IdKind::Chat, chat);

        // authorize: identity from the bus credentials, never the payload.
        const auto user = resolve_run_as_user(config_.callers, caller_uid(), run_as_user);
        // Recorded so that a later helper instance can still tie the session
        // to the connection that started it (see adopt_running_sessions).
        const auto sender = sys::caller_bus_name(getObject());
        if (!sender) {
            fail(ErrorKind::AccessDenied, "no caller bus name");
        }
        std::array<sdbus::UnixFd, 3> stdio{std::move(stdin_fd), std::move(stdout_fd), std::move(stderr_fd)};
        // The host's prerequisites, before anything is planned.
        if (gate_.ready(user)) {
            start_session(std::move(result), request, user, *sender, current_caller(getObject()), stdio);
            return;
        }
        gate_.start_canary(user);
        waiting_starts_.push_back(
            {std::move(result), std::move(request), user, *sender, current_caller(getObject()), std::move(stdio)});
    });
}

void ManagerService::StartSessionWithOptions(StartReply&& result, std::string owner, std::string chat,
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

std::string ManagerService::Version()
{
    return std::string(version::project());
}

uint32_t ManagerService::ActiveSessions()
{
    return static_cast<uint32_t>(sessions_.size());
}

void ManagerService::RunCanary(CanaryReply&& result, std::string run_as_user)
{
    touch();
    refused_as_typed_error(getObject(), "RunCanary", {}, RequestKind::Session, [&] {
        if (caller_uid() != 0) {
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
        waiting_canary_calls_.push_back(std::move(result));
    });
}

void ManagerService::release_waiting(const core::CheckResult& verdict)
{
    for (auto& call : waiting_canary_calls_) {
        call.returnResults(verdict.passed, verdict.detail, verdict.hint);
    }
    waiting_canary_calls_.clear();
    auto starts = std::move(waiting_starts_);
    waiting_starts_.clear();
    for (auto& start : starts) {
        try {
            if (!verdict.passed) {
                fail(ErrorKind::PreflightFailed,
                     verdict.name + ": " + verdict.detail + " (hint: " + verdict.hint + ")");
            }
            start_session(std::move(start.reply), start.request, start.user, start.worker, start.caller, start.stdio);
        } catch (const core::Error& e) {
            sys::write_log(core::refusal_record("StartSession", start.caller, e,
                                                {start.request.owner, start.request.chat, start.request.job, {}},
                                                false));
            start.reply.returnError(sys::to_bus_error(e));
        }
    }
}

void ManagerService::start_session(StartReply&& reply, const core::SessionRequest& request, const core::RunAsUser& user,
                                   const std::string& worker, const core::Caller& caller,
                                   const std::array<sdbus::UnixFd, 3>& stdio)
{
    const auto token = ClaimTable::new_token();
    // A gateway session's placeholder: worthless without its listener, and
    // made per start so that no two sessions share one.
    const auto* gateway = gateway_adapter(config_, request.adapter);
    const auto gateway_token =
        gateway != nullptr ? sys::random_hex(kGatewayTokenBytes, ErrorKind::LaunchFailed, "a gateway token") : "";
    auto plan = core::plan_session(config_, request, user, sys::observe_host(launcher_path_), token, gateway_token);
    core::add_journal_field(plan.properties, core::field_assignment(core::kFieldWorker, worker));
    // Provider session directories hold state the owner's earlier runs
    // left; they are never created, moved or copied here, only mounted.
    // The launcher binds each from a descriptor of the very directory
    // checked here, never by name again (see core::CheckedDir).
    for (const auto& dir : plan.session_dirs) {
        plan.launch.checked_dirs.push_back(sys::check_owned_directory(dir, user.uid, "session directory"));
    }
    if (!request.workspace.empty()) {
        plan.launch.checked_dirs.push_back(sys::check_owned_directory(plan.workspace, user.uid, "workspace"));
    }

    // A session this helper already watches is busy; replacing its
    // watch (and dropping it when systemd refuses) would lose its end.
    if (sessions_.contains(plan.unit_name)) {
        fail(ErrorKind::SessionBusy, "a session for this owner and chat is already running (" + plan.unit_name + ")");
    }
    apply_owner_limits(plan.slice);
    // act: register the spec before the unit exists so the launcher can
    // never race ahead of it, unconfirmed until the read-back below
    // passed; until commit, any failure below withdraws it.
    StartRollback rollback(claims_, sessions_, systemd_, token, plan.unit_name);
    PendingLaunch pending{plan.unit_name, user.uid,    plan.launch, std::chrono::steady_clock::now() + kClaimDeadline,
                          false,          std::nullopt};
    if (gateway != nullptr) {
        pending.gateway =
            core::gateway_session(config_, *gateway, plan.unit_name, request.owner, request.chat, gateway_token);
    }
    claims_.add(token, std::move(pending));
    // Watch before starting: the unit's object path is a pure function
    // of its name, and a session that ends at once must not be missed.
    const auto path = sys::unit_object_path(plan.unit_name);
    sessions_.track(plan.unit_name, path, request.owner, request.chat, request.job);
    auto start = std::make_unique<sys::TransientStart>(connection_, plan.unit_name, plan.properties, stdio);
    auto read =
        std::make_unique<sys::EffectivePropertiesRead>(connection_, path, sys::kServiceInterface, plan.properties);
    in_flight_.push_back(StartInFlight{std::move(reply), request, worker, caller, user.uid, plan.unit_name, path, token,
                                       std::move(plan.properties), std::move(start), std::move(read)});
    // From here finish_start answers, or undoes the start.
    rollback.commit();
}

std::optional<sdbus::ObjectPath> ManagerService::StartInFlight::started() const
{
    if (start->ready()) {
        try {
            start->result();
        } catch (const core::Error&) {
            return std::nullopt; // refused: the unit is not ours to stop (UnitExists)
        }
    }
    return path;
}

void ManagerService::finish_ready_starts()
{
    for (auto it = in_flight_.begin(); it != in_flight_.end();) {
        if (!it->ready()) {
            ++it;
            continue;
        }
        auto start = std::move(*it);
        it = in_flight_.erase(it);
        finish_start(start);
    }
}

void ManagerService::finish_start(StartInFlight& start)
{
    try {
        start.start->result();
        refuse_unless_applied(start);
    } catch (const core::Error& e) {
        // Fail closed: the spec is withdrawn (its launcher's Claim is then
        // refused) and a started unit stopped and let go.
        undo_start(claims_, sessions_, systemd_, start.token, start.unit, start.started());
        sys::write_log(core::refusal_record("StartSession", start.caller, e,
                                            {start.request.owner, start.request.chat, start.request.job, {}}, false));
        start.reply.returnError(sys::to_bus_error(e));
        return;
    }
    claims_.confirm(start.token);
    bind_to_worker(start.request.adapter, start.worker, start.unit);
    log_started(start);
    start.reply.returnResults(start.unit, start.path);
}

void ManagerService::log_started(const StartInFlight& start)
{
    const auto& caller = start.caller;
    std::string caller_text;
    if (caller.uid) {
        caller_text += " for caller uid " + std::to_string(*caller.uid);
    }
    if (caller.pid) {
        caller_text += " pid " + std::to_string(*caller.pid);
    }
    auto record = core::log_record(core::LogEvent::SessionStarted, "started " + start.unit + " as uid " +
                                                                       std::to_string(start.uid) + caller_text +
                                                                       " (adapter " + start.request.adapter + ")");
    core::add_session(record, {start.request.owner, start.request.chat, start.request.job, start.unit});
    record.fields.emplace_back(core::kFieldAdapter, start.request.adapter);
    record.fields.emplace_back(core::kFieldRunAsUid, std::to_string(start.uid));
    if (caller.uid) {
        record.fields.emplace_back(core::kFieldCallerUid, std::to_string(*caller.uid));
    }
    if (caller.pid) {
        record.fields.emplace_back(core::kFieldCallerPid, std::to_string(*caller.pid));
    }
    sys::write_log(record);
}

void ManagerService::refuse_unless_applied(const StartInFlight& start)
{
    std::optional<core::Weakening> weakening;
    std::string failure;
    try {
        weakening = core::find_weakening(start.planned, start.read->result());
    } catch (const core::Error& e) {
        failure = e.what();
    }
    if (!weakening && failure.empty()) {
        return;
    }
    if (!failure.empty()) {
        fail(ErrorKind::SystemdFailure, "could not confirm the hardening of " + start.unit + ": " + failure);
    }
    const auto message = start.unit + ": systemd applied " + weakening->property + "=" + weakening->effective +
                         " where the plan has " + weakening->property + "=" + weakening->planned +
                         "; a drop-in or unit setting overrides it (see `systemctl cat " + start.unit + "`)";
    // Logged by finish_start with the caller, as HardeningNotApplied.
    fail(ErrorKind::HardeningNotApplied, message);
}

void ManagerService::apply_owner_limits(const std::string& slice)
{
    const auto properties = core::owner_slice_properties(config_.owner_limits);
    if (properties.empty()) {
        return;
    }
    // Set on every start, not once: an operator's set-property or a daemon
    // reload may have changed the slice since the owner's last session.
    sys::set_runtime_properties(connection_, slice, properties);
    const auto weakening =
        core::find_weakening(properties, sys::read_effective_properties(connection_, sys::unit_object_path(slice),
                                                                        kSliceInterface, properties));
    if (weakening) {
        fail(ErrorKind::HardeningNotApplied, slice + ": systemd applied " + weakening->property + "=" +
                                                 weakening->effective + " where the owner limit is " +
                                                 weakening->planned + " (see `systemctl cat " + slice + "`)");
    }
}

void ManagerService::bind_to_worker(const std::string& adapter, const std::string& worker, const std::string& unit)
{
    const auto profile = config_.adapters.find(adapter);
    if (worker.empty() || profile == config_.adapters.end() || profile->second.keep_on_worker_disconnect) {
        return;
    }
    workers_.watch(worker, unit);
}

void ManagerService::stop_orphaned_sessions()
{
    for (const auto& unit : workers_.take_orphaned()) {
        if (!sessions_.contains(unit)) {
            continue;
        }
        const auto* session = sessions_.find(unit);
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

void ManagerService::StopSession(const std::string& owner, const std::string& chat)
{
    touch();
    refused_as_typed_error(getObject(), "StopSession", {owner, chat, {}, {}}, RequestKind::Session, [&] {
        core::validate_id(core::IdKind::Owner, owner);
        core::validate_id(core::IdKind::Chat, chat);
        const auto unit = core::session_unit_name(owner, chat);
        const auto path = systemd_.unit_path(unit);
        if (!path) {
            fail(ErrorKind::NoSuchSession, "no session for owner " + owner + " and chat " + chat);
        }
        const auto caller = caller_uid();
        require_session_access(systemd_, *path, caller, core::SessionAccess::OwnerOrRoot,
                               "the session belongs to another user");
        auto record = core::log_record(core::LogEvent::SessionStopped, "stopping " + unit + " at the request of uid " +
                                                                           std::to_string(caller) + " pid " +
                                                                           std::to_string(caller_pid()));
        core::add_session(record, {owner, chat, {}, unit});
        record.fields.emplace_back(core::kFieldStopReason, "requested");
        record.fields.emplace_back(core::kFieldCallerUid, std::to_string(caller));
        record.fields.emplace_back(core::kFieldCallerPid, std::to_string(caller_pid()));
        sys::write_log(record);
        systemd_.stop(unit);
    });
}

void ManagerService::Claim(sys::ClaimResult&& result, std::string token)
{
    touch();
    // The unit is the caller's own, from its cgroup: named in the refusal.
    const auto pid = sys::caller_pid(getObject());
    const auto caller_unit = pid ? unit_of_pid(*pid) : std::string();
    refused_as_typed_error(getObject(), "Claim", {{}, {}, {}, caller_unit}, RequestKind::Session, [&] {
        (void)caller_pid(); // AccessDenied without credentials
        const auto uid = caller_uid();
        switch (claims_.state(token, caller_unit, uid)) {
        case ClaimState::Ready:
            sys::return_claim(result,
                              sys::to_claim_reply(core::encode_launch_spec(*claims_.claim(token, caller_unit, uid))));
            return;
        case ClaimState::Unconfirmed:
            // One launcher per unit: a second Claim while one waits is refused.
            if (parked_claims_.count(token) == 0) {
                parked_claims_.emplace(token,
                                       ParkedClaim{std::move(result), caller_unit, uid, current_caller(getObject())});
                return;
            }
            break;
        case ClaimState::NoMatch: break;
        }
        fail(ErrorKind::AccessDenied, "no launch is waiting for this caller (unit '" + caller_unit + "')");
    });
}

void ManagerService::settle_parked_claims()
{
    for (auto it = parked_claims_.begin(); it != parked_claims_.end();) {
        auto& [token, parked] = *it;
        const auto state = claims_.state(token, parked.unit, parked.uid);
        if (state == ClaimState::Unconfirmed) {
            ++it;
            continue;
        }
        if (state == ClaimState::Ready) {
            sys::return_claim(parked.reply, sys::to_claim_reply(core::encode_launch_spec(
                                                *claims_.claim(token, parked.unit, parked.uid))));
        } else {
            const core::Error refused(ErrorKind::AccessDenied,
                                      "no launch is waiting for this caller (unit '" + parked.unit + "')");
            sys::write_log(core::refusal_record("Claim", parked.caller, refused, {{}, {}, {}, parked.unit}, false));
            parked.reply.returnError(sys::to_bus_error(refused));
        }
        it = parked_claims_.erase(it);
    }
}

void ManagerService::ReportWaiting(const uint32_t& ahead)
{
    touch();
    refused_as_typed_error(getObject(), "ReportWaiting", {}, RequestKind::Session, [&] {
        // Authorised like Claim: only a process in a session unit this
        // helper tracks, running with that unit's UID (User= is numeric).
        const auto unit = unit_of_pid(caller_pid());
        const auto* session = sessions_.find(unit);
        constexpr const char* kRefusal = "only a session's own launcher may report its wait";
        if (session == nullptr) {
            fail(ErrorKind::AccessDenied, kRefusal);
        }
        require_session_access(systemd_, session->path, caller_uid(), core::SessionAccess::OwnerOnly, kRefusal);
        emitSessionWaiting(session->unit, session->owner, session->chat, session->job, ahead);
    });
}

void ManagerService::HandOverListener(const std::string& token, const sdbus::UnixFd& listener)
{
    touch();
    const auto pid = sys::caller_pid(getObject());
    const auto caller_unit = pid ? unit_of_pid(*pid) : std::string();
    refused_as_typed_error(getObject(), "HandOverListener", {{}, {}, {}, caller_unit}, RequestKind::Session, [&] {
        // authorize: as Claim, and only after it (the registration waits
        // in the claim table from the Claim on), once.
        (void)caller_pid(); // AccessDenied without credentials
        auto session = claims_.take_gateway(token, caller_unit, caller_uid());
        if (!session) {
            fail(ErrorKind::AccessDenied,
                 "no gateway session waits for this caller's listener (unit '" + caller_unit + "')");
        }
        // validate, then act: the gateway answers "ok" or why not.
        require_listening_tcp_socket(listener.get());
        core::check_gateway_answer(sys::gateway_exchange(config_.gateway.control_socket,
                                                         core::encode_gateway_register(*session), listener.get(),
                                                         kGatewayRegisterTimeout));
        gateway_units_.insert(session->unit);
    });
}

void ManagerService::revoke_gateway(const std::string& unit)
{
    if (gateway_units_.erase(unit) == 0) {
        return;
    }
    try {
        core::check_gateway_answer(sys::gateway_exchange(config_.gateway.control_socket,
                                                         core::encode_gateway_revoke(unit), -1, kGatewayRevokeTimeout));
    } catch (const core::Error& e) {
        // The listener dies with the session's namespace anyway; the token
        // then reaches nothing, but the gateway keeps its entry until it
        // notices.
        log_trouble(unit, "could not revoke " + unit + " at the egress gateway: " + e.what());
    }
}

void ManagerService::adopt_running_sessions()
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
            gateway_units_.insert(unit.name);
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

bool ManagerService::has_ended(const TrackedSession& session)
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

void ManagerService::report_end(const TrackedSession& session)
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
    revoke_gateway(session.unit);
    workers_.forget(session.unit);
    emitSessionEnded(session.unit, session.owner, session.chat, session.job, end.result, end.code, end.status);
    systemd_.unref(session.path);
}

void ManagerService::housekeeping()
{
    if (const auto verdict = gate_.poll()) {
        release_waiting(*verdict);
        touch();
    }
    finish_ready_starts();
    for (const auto& unit : sessions_.take_candidates()) {
        // Confirmed while still tracked: a change that arrives during the
        // check is queued and makes the unit a candidate again.
        const auto* session = sessions_.find(unit);
        if (session == nullptr || !has_ended(*session)) {
            continue;
        }
        report_end(sessions_.release(unit));
        touch();
    }
    stop_orphaned_sessions();
    claims_.drop_expired(std::chrono::steady_clock::now());
    settle_parked_claims();
}

bool ManagerService::idle(std::chrono::steady_clock::time_point now) const
{
    return sessions_.empty() && claims_.empty() && !gate_.canary_running() && waiting_starts_.empty() &&
           waiting_canary_calls_.empty() && in_flight_.empty() && parked_claims_.empty() &&
           now - last_activity_ >= idle_timeout();
}

std::chrono::milliseconds ManagerService::idle_timeout() const
{
    return std::chrono::seconds(config_.idle_timeout_sec);
}

} // namespace nr::daemon
