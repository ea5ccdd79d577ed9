// SPDX-License-Identifier: Apache-2.0
#pragma once
// The helper's handlers wrap their bodies in refused_as_typed_error: a
// core::Error becomes the typed D-Bus error, and a warning record with the
// caller's UID and PID (from the bus credentials), the method, the error
// name and the session when known goes to the journal first. That is the
// whole of "every refusal is logged" (docs/troubleshooting.md).

#include "core/journal/log_event.h"
#include "sys/base/journal_writer.h"
#include "sys/bus/bus_compat.h"

#include <sdbus-c++/sdbus-c++.h>

#include <string_view>

namespace nr::daemon {

// The sender of the message being handled, as far as the bus says.
core::Caller current_caller(const sdbus::IObject& object);

enum class RequestKind { Session, File };

template <typename Body>
auto refused_as_typed_error(const sdbus::IObject& object, std::string_view method, const core::SessionRef& ref,
                            RequestKind kind, Body&& body) -> decltype(body())
{
    try {
        return body();
    } catch (const core::Error& e) {
        sys::write_log(core::refusal_record(method, current_caller(object), e, ref, kind == RequestKind::File));
        throw sys::to_bus_error(e);
    }
}

} // namespace nr::daemon
