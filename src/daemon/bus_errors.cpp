#include "daemon/bus_errors.h"

#include "sys/bus_compat.h"

namespace nr::daemon {

std::string bus_error_name(core::ErrorKind kind)
{
    return kErrorPrefix + std::string(core::error_name(kind));
}

sdbus::Error to_bus_error(const core::Error& error)
{
    return sys::bus_error(bus_error_name(error.kind()), error.what());
}

} // namespace nr::daemon
