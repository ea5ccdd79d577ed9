// SPDX-License-Identifier: Apache-2.0
#pragma once
// The helper's internal Launcher interface (org.metis.NativeRuntime1.Launcher),
// a second object on the Manager's path: where native-runtime-claim, from
// inside a session's unit on systemd < 257, gets that unit's helper channel.
// Every call is authorised by the caller's unit (from its cgroup) and UID,
// never by its payload; everything after goes over the channel
// (daemon/launch_channels.h).

#include "daemon/activity.h"
#include "daemon/claim_table.h"
#include "daemon/start_pipeline.h"
#include "dbus/native_runtime_launcher_adaptor.h"

#include <sdbus-c++/sdbus-c++.h>

#include <string>

namespace nr::daemon {

class LauncherObject final : public sdbus::AdaptorInterfaces<org::metis::NativeRuntime1::Launcher_adaptor> {
public:
    LauncherObject(sdbus::IConnection& connection, ClaimTable& claims, StartPipeline& pipeline, Activity& activity);
    ~LauncherObject();
    LauncherObject(const LauncherObject&) = delete;
    LauncherObject& operator=(const LauncherObject&) = delete;
    LauncherObject(LauncherObject&&) = delete;
    LauncherObject& operator=(LauncherObject&&) = delete;

private:
    // The unit's end of a new helper channel, with the spec sent on it
    // (StartPipeline::channel_for_claim). Asynchronous on the bus: a Claim
    // for a spec whose hardening is still being read back waits in the
    // start pipeline.
    void Claim(ClaimReply&& result, std::string token) override;
    // The unit of the calling process, from its cgroup ("" when unknown).
    [[nodiscard]] std::string caller_unit() const;

    ClaimTable& claims_;
    StartPipeline& pipeline_;
    Activity& activity_;
};

} // namespace nr::daemon
