// SPDX-License-Identifier: Apache-2.0
#pragma once
// One client of the helper's object for every interface it has: the
// generated proxies (dbus/*.xml, sdbus-c++-xml2cpp) bound to the helper's
// bus name and object path, registered on construction and unregistered on
// destruction. Manager_proxy declares its signal handlers pure virtual, so
// its users derive from HelperProxy<Manager_proxy>; the other two have no
// signals and are used as they are.
//
// Callers process the connection's events on their own thread (never with
// the library's event-loop thread), so no signal can be dispatched between
// the base's construction and a derived class's, and registering here
// instead of in each derived constructor is safe.

#include "core/bus/bus_names.h"
#include "sys/bus/bus_compat.h"

#include "dbus/native_runtime_files_proxy.h"
#include "dbus/native_runtime_launcher_proxy.h"
#include "dbus/native_runtime_proxy.h"

#include <sdbus-c++/sdbus-c++.h>

namespace nr::sys {

template <typename Interface> class HelperProxy : public sdbus::ProxyInterfaces<Interface> {
public:
    explicit HelperProxy(sdbus::IConnection& connection)
        : sdbus::ProxyInterfaces<Interface>(connection, BusName{core::kBusName}, sdbus::ObjectPath{core::kObjectPath})
    {
        this->registerProxy();
    }
    ~HelperProxy() { this->unregisterProxy(); }
    HelperProxy(const HelperProxy&) = delete;
    HelperProxy& operator=(const HelperProxy&) = delete;
    HelperProxy(HelperProxy&&) = delete;
    HelperProxy& operator=(HelperProxy&&) = delete;
};

using FilesProxy = HelperProxy<org::metis::NativeRuntime1::Files_proxy>;
using LauncherProxy = HelperProxy<org::metis::NativeRuntime1::Launcher_proxy>;

} // namespace nr::sys
