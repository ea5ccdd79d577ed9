// SPDX-License-Identifier: Apache-2.0
#include "daemon/request_log.h"

#include "sys/bus/bus_compat.h"

namespace nr::daemon {

core::Caller current_caller(const sdbus::IObject& object)
{
    core::Caller caller;
    caller.uid = sys::caller_uid(object);
    caller.pid = sys::caller_pid(object);
    return caller;
}

} // namespace nr::daemon
