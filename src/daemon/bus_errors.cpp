#include "daemon/bus_errors.h"

namespace nr::daemon {

std::string bus_error_name(core::ErrorKind kind)
{
    return kErrorPrefix + std::string(core::error_name(kind));
}

sdbus::Error to_bus_error(const core::Error& error)
{
    return sdbus::Error(bus_error_name(error.kind()), error.what());
}

} // namespace nr::daemon
