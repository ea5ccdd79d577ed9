// SPDX-License-Identifier: Apache-2.0
#include "daemon/start_pipeline.h"

#include "core/base/error.h"
#include "core/journal/journal_fields.h"
#include "core/launch/spec_delivery.h"
#include "core/plan/gateway_plan.h"
#include "core/plan/hardening_check.h"
#include "core/plan/owner_slice.h"
#include "daemon/gateway_registrations.h"
#include "daemon/handler_steps.h"
#include "sys/base/journal_writer.h"
#include "sys/base/launch_channel.h"
#include "sys/base/random_token.h"
#include "sys/bus/bus_compat.h"
#include "sys/fs/safe_dirs.h"
#include "sys/host/host_facts.h"
#include "sys/systemd/unit_settings.h"

#include <chrono>

namespace nr::daemon {

namespace {

using core::ErrorKind;
using core::fail;

constexpr std::size_t kGatewayTokenBytes = 32;
constexpr const char* kSliceInterface = "org.freedesktop.systemd1.Slice";

void refuse_claim(ParkedClaim& parked)
{
    const core::Error refused(ErrorKind::AccessDenied,
                              "no launch is waiting for this caller (unit '" + parked.unit + "')");
    sys::write_log(core::refusal_record("Claim", parked.caller, refused, {{}, {}, {}, parked.unit}, false));
    parked.reply.returnError(sys::to_bus_error(refused));
}

} // namespace

StartPipeline::StartPipeline(sdbus::IConnection& connection, const core::Config& config,
                             const std::string& launcher_path, sys::SystemdManager& systemd, ClaimTable& claims,
                             SessionRegistry& sessions, StartedHook started, KeepChannel keep_channel)
    : connection_(connection), config_(config), launcher_path_(launcher_path), systemd_(systemd), claims_(claims),
      sessions_(sessions), started_(std::move(started)), keep_channel_(std::move(keep_channel))
{
}

StartPipeline::~StartPipeline()
{
    // Calls still waiting for the canary when the helper stops: nothing was
    // planned or started for them, so they are refused as every call that
    // would outlast an exiting helper is, and made again (as the CLI and
    // the worker example do) they reach the next helper. A PreflightFailed
    // here would tell the caller the host failed a check it never finished.
    refuse_waiting(core::Error(ErrorKind::HelperStopping,
                               "the helper is exiting before its canary ended and did nothing; call again (the bus "
                               "starts a new one)"));
    // Starts whose hardening was never confirmed are undone, and their
    // callers (and launchers) told so.
    for (auto& start : in_flight_) {
        refuse(start, core::Error(ErrorKind::SystemdFailure,
                                  "the helper stopped before the hardening of " + start.unit + " was confirmed"));
    }
    in_flight_.clear();
    settle_parked_claims();
}

void StartPipeline::refuse_waiting(const core::Error& refusal)
{
    for (auto& call : waiting_canary_calls_) {
        call.returnError(sys::to_bus_error(refusal));
    }
    waiting_canary_calls_.clear();
    for (auto& start : waiting_starts_) {
        sys::write_log(core::refusal_record("StartSession", start.caller, refusal,
                                            {start.request.owner, start.request.chat, start.request.job, {}}, false));
        start.reply.returnError(sys::to_bus_error(refusal));
    }
    waiting_starts_.clear();
}

void StartPipeline::release_waiting(const core::CheckResult& verdict)
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
            this->start(std::move(start.reply), start.request, start.user, start.worker, start.caller, start.stdio);
        } catch (const core::Error& e) {
            sys::write_log(core::refusal_record("StartSession", start.caller, e,
                                                {start.request.owner, start.request.chat, start.request.job, {}},
                                                false));
            start.reply.returnError(sys::to_bus_error(e));
        }
    }
}

core::SessionPlan StartPipeline::plan(const core::SessionRequest& request, const core::RunAsUser& user,
                                      const std::string& worker, const std::string& token,
                                      const std::string& gateway_token)
{
    auto plan = core::plan_session(config_, request, user, sys::observe_host(launcher_path_, systemd_.spec_delivery()),
                                   token, gateway_token);
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
    return plan;
}

void StartPipeline::start(StartReply&& reply, const core::SessionRequest& request, const core::RunAsUser& user,
                          const std::string& worker, const core::Caller& caller,
                          const std::array<sdbus::UnixFd, 3>& stdio)
{
    const auto token = ClaimTable::new_token();
    // A gateway session's placeholder: worthless without its listener, and
    // made per start so that no two sessions share one.
    const auto* gateway = gateway_adapter(config_, request.adapter);
    const auto gateway_token =
        gateway != nullptr ? sys::random_hex(kGatewayTokenBytes, ErrorKind::LaunchFailed, "a gateway token") : "";
    auto plan = this->plan(request, user, worker, token, gateway_token);

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
    const bool by_channel = core::find_property(plan.properties, "ExtraFileDescriptors") != nullptr;
    PendingLaunch pending{
        plan.unit_name, user.uid,     plan.launch, std::chrono::steady_clock::now() + core::kLaunchSpecDeadline,
        false,          std::nullopt, by_channel};
    if (gateway != nullptr) {
        pending.gateway =
            core::gateway_session(config_, *gateway, plan.unit_name, request.owner, request.chat, gateway_token);
    }
    claims_.add(token, std::move(pending));
    // Watch before starting: the unit's object path is a pure function
    // of its name, and a session that ends at once must not be missed.
    const auto path = sys::unit_object_path(plan.unit_name);
    sessions_.track(plan.unit_name, path, request.owner, request.chat, request.job);
    // systemd keeps its own copy of the unit's end (the call carries it);
    // ours closes when this function returns.
    auto channel = sys::new_launch_channel_if(by_channel);
    auto start = std::make_unique<sys::TransientStart>(connection_, plan.unit_name, plan.properties,
                                                       sys::UnitDescriptors{stdio, channel.unit_end.get()});
    auto read =
        std::make_unique<sys::EffectivePropertiesRead>(connection_, path, sys::kServiceInterface, plan.properties);
    in_flight_.push_back(InFlight{std::move(reply), request, worker, caller, user.uid, plan.unit_name, path, token,
                                  std::move(plan.properties), std::move(start), std::move(read),
                                  std::move(channel.helper_end)});
    // From here finish answers, or undoes the start.
    rollback.commit();
}

std::optional<sdbus::ObjectPath> StartPipeline::InFlight::started() const
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

void StartPipeline::finish_ready_starts()
{
    for (auto it = in_flight_.begin(); it != in_flight_.end();) {
        if (!it->ready()) {
            ++it;
            continue;
        }
        auto start = std::move(*it);
        it = in_flight_.erase(it);
        finish(start);
    }
}

void StartPipeline::finish(InFlight& start)
{
    try {
        start.start->result();
        refuse_unless_applied(start);
    } catch (const core::Error& e) {
        // Fail closed: the spec is withdrawn (its launcher's Claim is then
        // refused) and a started unit stopped and let go.
        refuse(start, e);
        return;
    }
    claims_.confirm(start.token);
    if (start.channel.valid()) {
        try {
            send_by_channel(start);
        } catch (const core::Error& e) {
            refuse(start, e);
            return;
        }
    }
    started_(start.request.adapter, start.worker, start.unit);
    log_started(start);
    start.reply.returnResults(start.unit, start.path);
}

void StartPipeline::send_by_channel(InFlight& start)
{
    const auto spec = claims_.take_for_channel(start.token);
    if (!spec) {
        fail(ErrorKind::LaunchFailed, "the launch spec of " + start.unit + " is gone before it was sent");
    }
    sys::send_launch_spec(start.channel.get(), *spec);
    keep_channel_(start.unit, start.uid, start.token, std::move(start.channel));
}

sys::UniqueFd StartPipeline::channel_for_claim(const std::string& token, const std::string& unit, uid_t uid)
{
    const auto spec = claims_.claim(token, unit, uid);
    if (!spec) {
        fail(ErrorKind::AccessDenied, "no launch is waiting for this caller (unit '" + unit + "')");
    }
    auto channel = sys::new_launch_channel();
    sys::send_launch_spec(channel.helper_end.get(), *spec);
    keep_channel_(unit, uid, token, std::move(channel.helper_end));
    return std::move(channel.unit_end);
}

void StartPipeline::refuse(InFlight& start, const core::Error& error)
{
    undo_start(claims_, sessions_, systemd_, start.token, start.unit, start.started());
    sys::write_log(core::refusal_record("StartSession", start.caller, error,
                                        {start.request.owner, start.request.chat, start.request.job, {}}, false));
    start.reply.returnError(sys::to_bus_error(error));
}

void StartPipeline::log_started(const InFlight& start)
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

void StartPipeline::refuse_unless_applied(const InFlight& start)
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
    // Logged by finish with the caller, as HardeningNotApplied.
    fail(ErrorKind::HardeningNotApplied, message);
}

void StartPipeline::apply_owner_limits(const std::string& slice)
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

void StartPipeline::settle_parked_claims()
{
    for (auto it = parked_claims_.begin(); it != parked_claims_.end();) {
        auto& [token, parked] = *it;
        const auto state = claims_.state(token, parked.unit, parked.uid);
        if (state == ClaimState::Unconfirmed) {
            ++it;
            continue;
        }
        if (state == ClaimState::Ready) {
            try {
                parked.reply.returnResults(sdbus::UnixFd(channel_for_claim(token, parked.unit, parked.uid).get()));
            } catch (const core::Error& e) {
                parked.reply.returnError(sys::to_bus_error(e));
            }
        } else {
            refuse_claim(parked);
        }
        it = parked_claims_.erase(it);
    }
}

} // namespace nr::daemon
