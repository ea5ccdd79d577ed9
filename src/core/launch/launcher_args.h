// SPDX-License-Identifier: Apache-2.0
#pragma once
// The command line of a session unit's ExecStart=, and so readable by every
// local user: only non-secret references.
//   native-runtime-launch --claim TOKEN [--gateway-port PORT]
//   native-runtime-claim  --claim TOKEN [--gateway-port PORT]
// The launcher always takes its spec from the helper channel systemd (or,
// on systemd < 257, native-runtime-claim) passed it as
// core::kHelperChannelName (core/launch/spec_delivery.h). The token names
// the launch: native-runtime-claim presents it to Launcher.Claim, and the
// launcher only checks its shape.
// The port is on the command line, not only in the spec, because the
// launcher makes a gateway session's user and network namespace before it
// reads the spec: writing its own uid_map needs a dumpable process, and a
// dumpable process must not hold the spec (sys/net/netns_listener.h).

#include <cstdint>
#include <string>
#include <vector>

namespace nr::core {

struct LauncherArgs {
    std::string claim_token;
    std::uint16_t gateway_port = 0; // 0: not a gateway session
};

// argv[0] is `program_path`: the launcher's, or native-runtime-claim's,
// which execs the launcher with the same arguments.
std::vector<std::string> launcher_argv(const std::string& program_path, const LauncherArgs& args);

// Throws Error(LaunchFailed) with the usage for anything launcher_argv
// would not have produced (argv[0] is not looked at).
LauncherArgs parse_launcher_args(std::vector<std::string> argv);

// native-runtime-claim, which is installed beside the launcher.
std::string claim_path_beside(const std::string& launcher_path);

} // namespace nr::core
