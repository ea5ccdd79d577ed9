// SPDX-License-Identifier: Apache-2.0
#include "daemon/launcher_object.h"

#include "core/base/error.h"
#include "core/bus/bus_names.h"
#include "daemon/handler_steps.h"
#include "daemon/request_log.h"
#include "sys/bus/bus_compat.h"
#include "sys/service/unit_of_pid.h"

namespace nr::daemon {

namespace {

using core::ErrorKind;
using core::fail;

} // namespace

LauncherObject::LauncherObject(sdbus::IConnection& connection, ClaimTable& claims, StartPipeline& pipeline,
                               Activity& activity)
    : AdaptorInterfaces(connection, sdbus::ObjectPath{core::kObjectPath}), claims_(claims), pipeline_(pipeline),
      activity_(activity)
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

void LauncherObject::Claim(ClaimReply&& result, std::string token)
{
    activity_.touch();
    // The unit is the caller's own, from its cgroup: named in the refusal.
    const auto unit = caller_unit();
    refused_as_typed_error(getObject(), "Claim", {{}, {}, {}, unit}, RequestKind::Session, [&] {
        (void)require_caller_pid(getObject()); // AccessDenied without credentials
        const auto uid = require_caller_uid(getObject());
        switch (claims_.state(token, unit, uid)) {
        case ClaimState::Ready:
            result.returnResults(sdbus::UnixFd(pipeline_.channel_for_claim(token, unit, uid).get()));
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

} // namespace nr::daemon
