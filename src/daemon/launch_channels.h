// SPDX-License-Identifier: Apache-2.0
#pragma once
// The helper's ends of the helper channels whose spec it has sent
// (sys/base/launch_channel.h): what a launcher on systemd >= 257 tells the
// helper over its channel instead of calling Launcher.ReportWaiting and
// Launcher.HandOverListener on the bus. A message is authorised by the
// channel it came on, which only that unit's launcher holds, so it acts
// for exactly the unit, UID and claim token the channel was made for.
//
// A channel ends when its launcher says it is done ('D', just before it
// closes its end and forks bwrap), when nothing holds the unit's end any
// more (a launcher that died before saying so; systemd may keep the copy it
// passed until it releases the unit), or when a message of another shape
// arrives (logged; the launcher's next hand-over then fails). So the helper
// holds a descriptor per launch in progress, not per running session.

#include "daemon/claim_table.h"
#include "daemon/gateway_registrations.h"
#include "daemon/session_registry.h"
#include "sys/base/unique_fd.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <sys/types.h>
#include <vector>

namespace nr::daemon {

class LaunchChannels {
public:
    using WaitReport = std::function<void(const TrackedSession& session, std::uint32_t ahead)>;

    LaunchChannels(ClaimTable& claims, const SessionRegistry& sessions, GatewayRegistrations& gateways,
                   WaitReport report_wait)
        : claims_(claims), sessions_(sessions), gateways_(gateways), report_wait_(std::move(report_wait))
    {
    }

    void keep(const std::string& unit, uid_t uid, const std::string& token, sys::UniqueFd helper_end);

    // Every open channel, for the helper's loop to wake on.
    [[nodiscard]] std::vector<int> fds() const;

    // Acts on every message waiting (at most kMessagesPerServe per channel,
    // so one chatty launcher cannot hold up the loop) and drops the
    // channels that ended.
    void serve();

    [[nodiscard]] bool empty() const { return open_.empty(); }

    static constexpr int kMessagesPerServe = 16;

private:
    struct Open {
        std::string unit;
        uid_t uid = 0;
        std::string token;
        sys::UniqueFd fd;
    };

    // False when the channel ends.
    bool serve_one(Open& channel);
    // False, logged, when the helper refuses it: the channel then ends,
    // which the launcher reads as the refusal.
    bool register_listener(Open& channel, sys::UniqueFd listener);

    ClaimTable& claims_;
    const SessionRegistry& sessions_;
    GatewayRegistrations& gateways_;
    WaitReport report_wait_;
    std::map<int, Open> open_; // by descriptor
};

} // namespace nr::daemon
