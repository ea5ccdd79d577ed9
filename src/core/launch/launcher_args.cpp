// SPDX-License-Identifier: Apache-2.0
#include "core/launch/launcher_args.h"

#include "core/base/error.h"

#include <charconv>

namespace nr::core {

namespace {

[[noreturn]] void usage()
{
    fail(ErrorKind::LaunchFailed, "usage: --claim TOKEN [--gateway-port PORT]");
}

} // namespace

std::vector<std::string> launcher_argv(const std::string& program_path, const LauncherArgs& args)
{
    std::vector<std::string> argv{program_path, "--claim", args.claim_token};
    if (args.gateway_port != 0) {
        argv.emplace_back("--gateway-port");
        argv.push_back(std::to_string(args.gateway_port));
    }
    return argv;
}

LauncherArgs parse_launcher_args(std::vector<std::string> argv)
{
    LauncherArgs args;
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

std::string claim_path_beside(const std::string& launcher_path)
{
    const auto slash = launcher_path.rfind('/');
    return (slash == std::string::npos ? std::string() : launcher_path.substr(0, slash + 1)) + "native-runtime-claim";
}

} // namespace nr::core
