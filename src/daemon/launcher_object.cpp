// SPDX-License-Identifier: Apache-2.0
#include "daemon/launcher_object.h"

#include "core/base/error.h"
#include "core/bus/bus_names.h"
#include "core/launch/launch_spec.h"
#include "daemon/handler_steps.h"
#include "daemon/request_log.h"
#include "sys/bus/bus_compat.h"
#include "sys/service/unit_of_pid.h"

namespace nr::daemon {

namespace {

using core::ErrorKind;
using core::fail;

} // namespace

LauncherObject::LauncherObject(sdbus::IConnection& connection, sys::SystemdManager& systemd, ClaimTable& claims,
                               const SessionRegistry& sessions, StartPipeline& pipeline, GatewayRegistrations& gateways,
                               Activity& activity, WaitReport report_wait)
    : AdaptorInterfaces(connection, sdbus::ObjectPath{core::kObjectPath}), systemd_(systemd), claims_(claims),
      sessions_(sessions), pipeline_(pipeline), gateways_(gateways), activity_(activity),
      report_wait_(std::move(report_wait))
{
    registerAdaptor();
}

LauncherObject::~LauncherObject()
{
    unregisterAdaptor();
}

std::string LauncherObject::caller_unit() const
{
    const auto pid = sys::caller_pid(getObject());
    return pid ? sys::unit_of_pid(*pid) : std::string();
}

void LauncherObject::Claim(sys::ClaimResult&& result, std::string token)
{
    activity_.touch();
    // The unit is the caller's own, from its cgroup: named in the refusal.
    const auto unit = caller_unit();
    refused_as_typed_error(getObject(), "Claim", {{}, {}, {}, unit}, RequestKind::Session, [&] {
        (void)require_caller_pid(getObject()); // AccessDenied without credentials
        const auto uid = require_caller_uid(getObject());
        switch (claims_.state(token, unit, uid)) {
        case ClaimState::Ready:
            sys::return_claim(result, sys::to_claim_reply(core::encode_launch_spec(*claims_.claim(token, unit, uid))));
            return;
        case ClaimState::Unconfirmed:
            // One launcher per unit: a second Claim while one waits is refused.
            if (!pipeline_.has_parked_claim(token)) {
                pipeline_.park_claim(token, ParkedClaim{std::move(result), unit, uid, current_caller(getObject())});
                return;
            }
            break;
        case ClaimState::NoMatch: break;
        }
        fail(ErrorKind::AccessDenied, "no launch is waiting for this caller (unit '" + unit + "')");
    });
}

void LauncherObject::ReportWaiting(const uint32_t& ahead)
{
    activity_.touch();
    refused_as_typed_error(getObject(), "ReportWaiting", {}, RequestKind::Session, [&] {
        // Authorised like Claim: only a process in a session unit this
        // helper tracks, running with that unit's UID (User= is numeric).
        const auto* session = sessions_.find(sys::unit_of_pid(require_caller_pid(getObject())));
        constexpr const char* kRefusal = "only a session's own launcher may report its wait";
        if (session == nullptr) {
            fail(ErrorKind::AccessDenied, kRefusal);
        }
        require_session_access(systemd_, session->path, require_caller_uid(getObject()), core::SessionAccess::OwnerOnly,
                               kRefusal);
        report_wait_(*session, ahead);
    });
}

void LauncherObject::HandOverListener(const std::string& token, const sdbus::UnixFd& listener)
{
    activity_.touch();
    const auto unit = caller_unit();
    refused_as_typed_error(getObject(), "HandOverListener", {{}, {}, {}, unit}, RequestKind::Session, [&] {
        // authorize: as Claim, and only after it (the registration waits
        // in the claim table from the Claim on), once.
        (void)require_caller_pid(getObject()); // AccessDenied without credentials
        auto session = claims_.take_gateway(token, unit, require_caller_uid(getObject()));
        if (!session) {
            fail(ErrorKind::AccessDenied, "no gateway session waits for this caller's listener (unit '" + unit + "')");
        }
        gateways_.add(*session, listener.get());
    });
}

} // namespace nr::daemon
