// SPDX-License-Identifier: Apache-2.0
#include "core/launch/spec_delivery.h"

#include <charconv>

namespace nr::core {

SpecDelivery spec_delivery_for(std::string_view systemd_version)
{
    int major = 0;
    const auto* end = systemd_version.data() + systemd_version.size();
    const auto [ptr, ec] = std::from_chars(systemd_version.data(), end, major);
    if (ec != std::errc() || ptr == systemd_version.data() || major < kFirstSystemdPassingDescriptors) {
        return SpecDelivery::Claim;
    }
    return SpecDelivery::HelperChannel;
}

std::string describe(SpecDelivery delivery)
{
    switch (delivery) {
    case SpecDelivery::HelperChannel:
        return std::string("by descriptor: a sealed memfd over the unit's ") + kHelperChannelName +
               " (ExtraFileDescriptors=, systemd >= " + std::to_string(kFirstSystemdPassingDescriptors) + ")";
    case SpecDelivery::Claim: break;
    }
    return std::string("by descriptor from Launcher.Claim: native-runtime-claim gets the unit's ") +
           kHelperChannelName + " over the bus and execs the launcher with it (systemd < " +
           std::to_string(kFirstSystemdPassingDescriptors) + " cannot pass a transient unit descriptors)";
}

} // namespace nr::core
