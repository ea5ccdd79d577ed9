// SPDX-License-Identifier: Apache-2.0
#include "core/launch/launcher_args.h"

#include "core/base/error.h"

#include <charconv>

namespace nr::core {

namespace {

[[noreturn]] void usage()
{
    fail(ErrorKind::LaunchFailed, "usage: native-runtime-launch --claim TOKEN [--gateway-port PORT] [--spec-channel]");
}

} // namespace

std::vector<std::string> launcher_argv(const std::string& launcher_path, const LauncherArgs& args)
{
    std::vector<std::string> argv{launcher_path, "--claim", args.claim_token};
    if (args.gateway_port != 0) {
        argv.emplace_back("--gateway-port");
        argv.push_back(std::to_string(args.gateway_port));
    }
    if (args.spec_channel) {
        argv.emplace_back("--spec-channel");
    }
    return argv;
}

LauncherArgs parse_launcher_args(std::vector<std::string> argv)
{
    LauncherArgs args;
    if (!argv.empty() && argv.back() == "--spec-channel") {
        args.spec_channel = true;
        argv.pop_back();
    }
    if ((argv.size() != 3 && argv.size() != 5) || argv[1] != "--claim" || argv[2].empty()) {
        usage();
    }
    args.claim_token = argv[2];
    if (argv.size() == 5) {
        const auto& text = argv[4];
        const auto* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, args.gateway_port);
        if (argv[3] != "--gateway-port" || ec != std::errc() || ptr != end || args.gateway_port == 0 ||
            std::to_string(args.gateway_port) != text) {
            usage();
        }
    }
    return args;
}

} // namespace nr::core
