// SPDX-License-Identifier: Apache-2.0
#pragma once
// native-runtime-launch's command line, which is ExecStart= of a session's
// unit and so readable by every local user: only non-secret references.
//   native-runtime-launch --claim TOKEN [--gateway-port PORT] [--spec-channel]
// The port is on the command line, not only in the claimed spec, because
// the launcher makes a gateway session's user and network namespace before
// it claims anything: writing its own uid_map needs a dumpable process, and
// a dumpable process must not hold the spec (sys/net/netns_listener.h).
// --spec-channel: the spec arrives over the descriptor systemd passed as
// core::kHelperChannelName, never by Claim (core/launch/spec_delivery.h);
// without it the launcher claims it and refuses any passed descriptor. The
// token stays either way: HandOverListener and ReportWaiting present it.

#include <cstdint>
#include <string>
#include <vector>

namespace nr::core {

struct LauncherArgs {
    std::string claim_token;
    std::uint16_t gateway_port = 0; // 0: not a gateway session
    bool spec_channel = false;
};

// argv[0] is `launcher_path`.
std::vector<std::string> launcher_argv(const std::string& launcher_path, const LauncherArgs& args);

// Throws Error(LaunchFailed) with the usage for anything launcher_argv
// would not have produced (argv[0] is not looked at).
LauncherArgs parse_launcher_args(std::vector<std::string> argv);

} // namespace nr::core
