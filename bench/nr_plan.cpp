// SPDX-License-Identifier: Apache-2.0
// nr-plan: prints the plan the helper would make for one session, as JSON,
// so that bench/run builds its baselines from the product's own decisions
// (core::plan_session) instead of re-deriving them: the unit name and slice,
// the unit properties (each with the `systemd-run -p` assignment that
// reproduces it, or null where systemd-run supplies that part itself), the
// bwrap command line and the session's environment.
//
// usage: nr-plan [--config PATH] --user NAME --owner ID --chat ID
//                --adapter NAME [--workspace DIR] -- ARGV...
//
// It reads the configuration and the host facts (root symlinks) exactly as
// the helper does, resolves NAME through NSS, and plans with a placeholder
// claim token; nothing is started and nothing is written. It takes no
// request environment, so the plan holds no credential: the environment it
// prints is the operational one the planner computes itself.
//
// Exit status: 0 with the JSON on stdout; 1 when the planner refuses the
// request (typed error on stderr); 2 on a usage error.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/base/error.h"
#include "core/base/network_policy.h"
#include "core/cli/json_output.h"
#include "core/launch/sandbox_args.h"
#include "core/plan/session_plan.h"
#include "sys/host/config_file.h"
#include "sys/host/host_facts.h"
#include "sys/host/identity.h"

#ifndef NR_LAUNCHER_PATH
#error "NR_LAUNCHER_PATH must be defined by the build"
#endif

namespace {

using nr::core::Json;

constexpr int kExitRefused = 1;
constexpr int kExitUsage = 2;
constexpr std::uint64_t kUsecPerCpuPercent = 10000;

struct Options {
    std::string config;
    std::string user;
    nr::core::SessionRequest request;
};

[[noreturn]] void usage(const std::string& why)
{
    std::cerr << "nr-plan: " << why
              << "\nusage: nr-plan [--config PATH] --user NAME --owner ID --chat ID --adapter NAME"
                 " [--workspace DIR] -- ARGV...\n";
    std::exit(kExitUsage);
}

Options parse_options(int argc, char** argv)
{
    Options options;
    options.config = nr::sys::config_path();
    int i = 1;
    for (; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--") {
            ++i;
            break;
        }
        if (i + 1 >= argc) {
            usage(std::string(arg) + " needs a value");
        }
        const std::string value = argv[++i];
        if (arg == "--config") {
            options.config = value;
        } else if (arg == "--user") {
            options.user = value;
        } else if (arg == "--owner") {
            options.request.owner = value;
        } else if (arg == "--chat") {
            options.request.chat = value;
        } else if (arg == "--adapter") {
            options.request.adapter = value;
        } else if (arg == "--workspace") {
            options.request.workspace = value;
        } else {
            usage("unknown option " + std::string(arg));
        }
    }
    for (; i < argc; ++i) {
        options.request.argv.emplace_back(argv[i]);
    }
    if (options.user.empty() || options.request.argv.empty()) {
        usage("--user and the command after -- are required");
    }
    return options;
}

std::string joined(const std::vector<std::string>& items)
{
    std::string out;
    for (const auto& item : items) {
        out += (out.empty() ? "" : " ") + item;
    }
    return out;
}

std::vector<std::string> prefixes(const nr::core::AddressList& list)
{
    std::vector<std::string> out;
    for (const auto& prefix : list.prefixes) {
        out.push_back(nr::core::format_ip_prefix(prefix));
    }
    return out;
}

Json value_json(const nr::core::PropertyValue& value)
{
    return std::visit(
        [](const auto& v) -> Json {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, nr::core::ExecCommand>) {
                return Json{{"path", v.path}, {"argv", v.argv}};
            } else if constexpr (std::is_same_v<T, nr::core::StdioSlot>) {
                return v == nr::core::StdioSlot::Input    ? "input"
                       : v == nr::core::StdioSlot::Output ? "output"
                                                          : "error";
            } else if constexpr (std::is_same_v<T, nr::core::PassedDescriptorSlot>) {
                return Json{{"descriptor", v.name}};
            } else if constexpr (std::is_same_v<T, nr::core::JournalFields>) {
                return v.fields;
            } else if constexpr (std::is_same_v<T, nr::core::AddressList>) {
                return prefixes(v);
            } else if constexpr (std::is_same_v<T, nr::core::NameList>) {
                return Json{{"allow_list", v.allow_list}, {"names", v.names}};
            } else if constexpr (std::is_same_v<T, nr::core::ErrorNumber>) {
                return v.value;
            } else {
                return v;
            }
        },
        value);
}

// The `systemd-run -p` assignment that gives a unit the same property, or
// nullopt for the parts of a session unit that systemd-run provides itself
// or that only make sense for a session: the command (ExecStart, the
// launcher with its claim), the stdio descriptors (--pipe passes its own),
// the session's journal tags and description. Throws for a property this
// tool has no spelling for, so a new property cannot be dropped silently.
std::optional<std::string> assignment(const nr::core::UnitProperty& property)
{
    const auto& name = property.name;
    const auto& value = property.value;
    if (name == "ExecStart" || name == "LogExtraFields" || name == "Description" ||
        std::holds_alternative<nr::core::StdioSlot>(value)) {
        return std::nullopt;
    }
    if (name == "CPUQuotaPerSecUSec") {
        return "CPUQuota=" + std::to_string(std::get<std::uint64_t>(value) / kUsecPerCpuPercent) + "%";
    }
    if (name == "RuntimeMaxUSec") {
        return "RuntimeMaxSec=" + std::to_string(std::get<std::uint64_t>(value)) + "us";
    }
    if (name == "CapabilityBoundingSet" || name == "AmbientCapabilities") {
        if (std::get<std::uint64_t>(value) != 0) {
            nr::core::fail(nr::core::ErrorKind::InvalidArgument, name + ": only the empty set has a spelling here");
        }
        return name + "=";
    }
    return std::visit(
        [&name](const auto& v) -> std::string {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, bool>) {
                return name + "=" + (v ? "yes" : "no");
            } else if constexpr (std::is_same_v<T, std::uint64_t>) {
                return name + "=" + std::to_string(v);
            } else if constexpr (std::is_same_v<T, std::string>) {
                return name + "=" + v;
            } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
                return name + "=" + joined(v);
            } else if constexpr (std::is_same_v<T, nr::core::AddressList>) {
                return name + "=" + joined(prefixes(v));
            } else if constexpr (std::is_same_v<T, nr::core::NameList>) {
                return name + "=" + (v.allow_list ? "" : "~") + joined(v.names);
            } else if constexpr (std::is_same_v<T, nr::core::ErrorNumber>) {
                return name + "=" + std::to_string(v.value);
            } else {
                nr::core::fail(nr::core::ErrorKind::InvalidArgument, name + ": no systemd-run spelling");
            }
        },
        value);
}

// What the launcher hands bwrap through --args (the planned options and the
// environment as --setenv), inlined as ordinary arguments and without the
// seccomp descriptor only the launcher has: the sandbox of baselines A and B.
// The launcher execs bwrap with an empty environment; a baseline's bwrap is
// started with one (a shell's, a unit's), so --clearenv stands for that.
std::vector<std::string> inline_bwrap_argv(const nr::core::LaunchSpec& launch)
{
    constexpr int kNoFd = -1;
    const auto data = nr::core::bwrap_args_data(launch.bwrap_argv, launch.environment, kNoFd);
    std::vector<std::string> options;
    std::size_t start = 0;
    while (start < data.size()) {
        const auto end = data.find('\0', start);
        options.push_back(data.substr(start, end - start));
        start = end + 1;
    }
    // The last two items are "--seccomp" and the descriptor.
    options.resize(options.size() - 2);
    std::vector<std::string> argv{launch.bwrap_argv.front()};
    const auto first_setenv = std::find(options.begin(), options.end(), "--setenv");
    argv.insert(argv.end(), options.begin(), first_setenv);
    argv.emplace_back("--clearenv");
    argv.insert(argv.end(), first_setenv, options.end());
    const auto separator = std::find(launch.bwrap_argv.begin(), launch.bwrap_argv.end(), "--");
    argv.insert(argv.end(), separator, launch.bwrap_argv.end());
    return argv;
}

Json plan_json(const nr::core::SessionPlan& plan)
{
    Json properties = Json::array();
    for (const auto& property : plan.properties) {
        const auto spelled = assignment(property);
        properties.push_back({{"name", property.name},
                              {"value", value_json(property.value)},
                              {"systemd_run", spelled ? Json(*spelled) : Json(nullptr)}});
    }
    std::vector<std::string> private_dirs;
    for (const auto& relative : plan.launch.dirs.relative) {
        private_dirs.push_back(plan.launch.dirs.base + "/" + relative);
    }
    return Json{
        {"unit_name", plan.unit_name},
        {"slice", plan.slice},
        {"owner", plan.owner},
        {"chat", plan.chat},
        {"adapter", plan.adapter},
        {"user", {{"name", plan.user.name}, {"uid", plan.user.uid}, {"gid", plan.user.gid}}},
        {"home", plan.home},
        {"workspace", plan.workspace},
        {"data_dir", plan.launch.dirs.base},
        {"private_dirs", private_dirs},
        {"environment", plan.launch.environment},
        {"bwrap_argv", plan.launch.bwrap_argv},
        {"baseline_bwrap_argv", inline_bwrap_argv(plan.launch)},
        {"properties", properties},
    };
}

} // namespace

int main(int argc, char** argv)
{
    const auto options = parse_options(argc, argv);
    try {
        const auto config = nr::sys::load_config(options.config);
        const auto user = nr::sys::lookup_user(options.user);
        if (!user) {
            nr::core::fail(nr::core::ErrorKind::InvalidArgument, "no such user " + options.user);
        }
        // Claim's plan: the baselines are systemd-run units, which cannot
        // be handed a descriptor of the helper's.
        const auto plan =
            nr::core::plan_session(config, options.request, *user,
                                   nr::sys::observe_host(NR_LAUNCHER_PATH, nr::core::SpecDelivery::Claim), "plan-only");
        std::cout << nr::core::json_text(plan_json(plan), nr::core::JsonStyle::Pretty) << '\n';
    } catch (const nr::core::Error& e) {
        std::cerr << "nr-plan: " << nr::core::error_name(e.kind()) << ": " << e.what() << '\n';
        return kExitRefused;
    }
    return 0;
}
