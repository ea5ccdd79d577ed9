// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the config parser.
//
// Contract under test: parse_config either returns a Config that satisfies
// every invariant the helper relies on later, or throws Error(ConfigInvalid)
// whose message starts with the source name. Any other exception type, a
// crash, or a broken invariant is a finding. An accepted config is then run
// through plan_session, which must succeed for a plain request and produce a
// sandbox that mounts nothing the config did not grant, with each protected
// home path read-only over the home; for a gateway
// adapter, its placeholder token reaches no unit property.
//
// Built as a libFuzzer binary with clang (-DNR_FUZZ=ON); the replay test
// compiles this same file with LLVMFuzzerTestOneInput renamed.

#include "core/base/error.h"
#include "core/base/ids.h"
#include "core/base/path_policy.h"
#include "core/config/config.h"
#include "core/launch/launcher_args.h"
#include "core/launch/protected_paths.h"
#include "core/plan/session_plan.h"
#include "fuzz_support.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace nr::core;
using nr::fuzz::require;

constexpr std::string_view kSource = "fuzz.yaml";
constexpr std::string_view kLauncher = "/usr/libexec/native-runtime/native-runtime-launch";
constexpr std::string_view kToken = "fuzz-claim-token";
constexpr std::string_view kGatewayToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

bool is_valid_path(const std::string& path)
{
    try {
        validate_absolute_path(path, "path");
        return true;
    } catch (const Error&) {
        return false;
    }
}

bool is_valid_id(const std::string& id)
{
    try {
        validate_id(IdKind::Adapter, id);
        return true;
    } catch (const Error&) {
        return false;
    }
}

std::vector<std::string> never_visible(const Config& c)
{
    auto out = c.hidden_paths;
    out.push_back(c.data_dir);
    return out;
}

void require_grant(const Config& c, const std::string& grant, const std::string& what)
{
    require(is_valid_path(grant), what + " is a canonical absolute path: " + grant);
    for (const auto& absent : never_visible(c)) {
        require(!paths_overlap(grant, absent), what + " " + grant + " does not overlap " + absent);
    }
}

void check_config(const Config& c)
{
    require(c.source == kSource, "source is kept");
    require(is_valid_path(c.data_dir), "data_dir is canonical");
    require(c.data_dir != "/", "data_dir is not /");
    require(is_valid_path(c.bwrap_path), "bwrap is canonical");
    for (const auto& hidden : c.hidden_paths) {
        require(is_valid_path(hidden), "hidden path is canonical");
    }
    require(!c.read_only_paths.empty(), "there is at least one read-only grant");
    for (const auto& grant : c.read_only_paths) {
        require_grant(c, grant, "read-only grant");
    }
    require(!c.adapters.empty(), "there is at least one adapter");
    try {
        check_protected_paths(c.protected_home_paths);
    } catch (const Error& e) {
        require(false, std::string("the owner's protected home paths keep their rules: ") + e.what());
    }
    for (const auto& [name, profile] : c.adapters) {
        require(name == profile.name, "adapter key equals its name");
        require(is_valid_id(name), "adapter name is an id");
        require_grant(c, profile.executable, "executable");
        require(profile.executable != "/", "executable is not /");
        for (const auto& grant : profile.read_only_paths) {
            require_grant(c, grant, "adapter grant");
        }
        try {
            check_protected_paths(profile.protected_home_paths);
        } catch (const Error& e) {
            require(false, std::string("protected home paths keep their rules: ") + e.what());
        }
        for (const auto& path : profile.protected_home_paths) {
            require(std::any_of(c.protected_home_paths.begin(), c.protected_home_paths.end(),
                                [&path](const ProtectedPath& kept) {
                                    return kept == path ||
                                           (kept.directory && path_is_within(path.relative, kept.relative));
                                }),
                    "every adapter's protected path is protected for the owner: " + path.relative);
        }
        require(profile.network == NetworkMode::Gateway || profile.egress == EgressPolicy{},
                "only gateway adapters have an egress policy");
        for (const auto& route : profile.egress.providers) {
            require(std::find(profile.egress.allow_hosts.begin(), profile.egress.allow_hosts.end(), route.host) !=
                        profile.egress.allow_hosts.end(),
                    "every provider host is allowed");
            require(std::find(profile.credential_env.begin(), profile.credential_env.end(), route.key_env) ==
                        profile.credential_env.end(),
                    "the key variable is never a credential a worker passes");
        }
    }
    require(c.gateway.port != 0 && c.gateway.max_header_bytes > 0 && c.gateway.max_request_bytes > 0 &&
                c.gateway.max_response_bytes > 0 && c.gateway.control_socket.starts_with('/'),
            "gateway settings are usable");
    const auto& l = c.limits;
    require(l.memory_max_bytes > 0 && l.tasks_max > 0 && l.cpu_quota_percent > 0 && l.runtime_max_sec > 0 &&
                l.tmp_size_bytes > 0,
            "limits are positive");
    require(l.tasks_max <= (1U << 22U), "tasks_max is bounded");
    require(l.cpu_quota_percent <= 100000, "cpu_quota_percent is bounded");
    require(l.runtime_max_sec <= 365ULL * 24 * 3600, "runtime_max_sec is bounded");
    require(!c.idle_timeout_sec || *c.idle_timeout_sec <= 86400, "idle_timeout_sec is bounded");
}

std::string basename_of(const std::string& path)
{
    return path.substr(path.rfind('/') + 1);
}

void check_plan(const Config& c)
{
    const auto& adapter = c.adapters.begin()->second;
    SessionRequest request;
    request.owner = "owner";
    request.chat = "chat";
    request.adapter = adapter.name;
    request.argv = {basename_of(adapter.executable), "--version"};
    SessionPlan plan;
    try {
        plan = plan_session(c, request, RunAsUser{"user", 1000, 1000},
                            HostFacts{std::string(kLauncher), {{"/bin", "usr/bin"}}, {}}, std::string(kToken),
                            std::string(kGatewayToken));
    } catch (const Error& e) {
        require(false, std::string("a plain request is planned for an accepted config: ") + e.what());
    }

    const auto& argv = plan.launch.bwrap_argv;
    const auto sep = std::find(argv.begin(), argv.end(), "--");
    require(sep != argv.end(), "bwrap argv has a separator");
    require(argv.size() >= 3 && argv[0] == c.bwrap_path && argv[1] == "--unshare-all" && argv[2] == "--unshare-user",
            "bwrap unshares everything first");
    const bool shares_net = std::find(argv.begin(), sep, "--share-net") != sep;
    // A gateway session shares the namespace the launcher made for it,
    // never the host's: the launcher makes one whenever the port is set.
    require(shares_net == (adapter.network != NetworkMode::Offline), "--share-net only for host or gateway network");
    require(adapter.network != NetworkMode::Gateway || plan.launch.gateway_port != 0,
            "a gateway session's bwrap starts in the launcher's own namespace");
    const bool disables_userns = std::find(argv.begin(), sep, "--disable-userns") != sep;
    require(disables_userns == !adapter.nested_userns, "--disable-userns unless nested_userns");

    std::vector<std::string> granted = c.read_only_paths;
    granted.insert(granted.end(), adapter.read_only_paths.begin(), adapter.read_only_paths.end());
    // Protected home paths are read-only mounts in the home, and the
    // directories on the way to them writable binds onto themselves.
    // They are every adapter's together (the owner's home is shared).
    std::vector<std::string> protected_paths;
    for (const auto& path : c.protected_home_paths) {
        protected_paths.push_back(join_path(plan.home, path.relative));
    }
    std::vector<std::string> writable_paths{plan.home, plan.workspace};
    for (const auto& ancestor : protected_ancestors(c.protected_home_paths)) {
        writable_paths.push_back(join_path(plan.home, ancestor));
    }
    const auto expected_writable = writable_paths.size() + plan.session_dirs.size();
    auto listed = [](const std::vector<std::string>& paths, const std::string& path) {
        return std::find(paths.begin(), paths.end(), path) != paths.end();
    };
    std::size_t writable = 0;
    std::size_t protected_mounts = 0;
    bool home_mounted = false;
    for (auto it = argv.begin(); it < sep; ++it) {
        if (*it == "--ro-bind") {
            require(it + 2 < sep && *(it + 1) == *(it + 2), "--ro-bind maps a path onto itself");
            const bool is_protected = listed(protected_paths, *(it + 1));
            require(listed(granted, *(it + 1)) || is_protected,
                    "only granted and protected paths are mounted read-only: " + *(it + 1));
            require(!is_protected || home_mounted, "a protected path is mounted after the home");
            protected_mounts += is_protected ? 1 : 0;
            it += 2;
        } else if (*it == "--bind") {
            require(it + 2 < sep && *(it + 1) == *(it + 2), "--bind maps a path onto itself");
            const bool session_dir = listed(plan.session_dirs, *(it + 1));
            require(listed(writable_paths, *(it + 1)) || session_dir,
                    "only home, workspace, session directories and the way to protected paths are writable: " +
                        *(it + 1));
            require(session_dir || path_is_within(*(it + 1), c.data_dir + "/native-runtime/owner"),
                    "writable paths are inside the owner tree");
            home_mounted = home_mounted || *(it + 1) == plan.home;
            ++writable;
            it += 2;
        } else if (it->starts_with("--") && (it->find("bind") != std::string::npos || *it == "--overlay-src")) {
            require(false, "no other kind of host mount: " + *it);
        }
    }
    require(writable == expected_writable, "home, workspace and every other writable path are mounted once");
    require(protected_mounts == protected_paths.size(), "every protected path is mounted read-only once");
    require(plan.launch.protected_paths.paths == c.protected_home_paths &&
                plan.launch.protected_paths.base == (protected_paths.empty() ? "" : plan.home),
            "the launch spec carries the owner's protected paths relative to the home");

    const auto* exec = find_property(plan.properties, "ExecStart");
    require(exec != nullptr, "ExecStart is set");
    const auto* command = std::get_if<ExecCommand>(&exec->value);
    const auto gateway_port = adapter.network == NetworkMode::Gateway ? c.gateway.port : std::uint16_t{0};
    require(plan.launch.gateway_port == gateway_port, "only a gateway session has a gateway port");
    const auto shim = claim_path_beside(std::string(kLauncher));
    require(command != nullptr && command->path == shim &&
                command->argv == launcher_argv(shim, {std::string(kToken), gateway_port}),
            "ExecStart is the claim shim with the claim token (and a gateway session's port)");
    for (const auto& property : plan.properties) {
        if (const auto* text = std::get_if<std::string>(&property.value)) {
            require(text->find(kGatewayToken) == std::string::npos, "the gateway token is in no unit property");
        }
    }
    require(find_property(plan.properties, "User") != nullptr, "User is set");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    Config config;
    try {
        config = parse_config(text, kSource);
    } catch (const Error& e) {
        require(e.kind() == ErrorKind::ConfigInvalid,
                std::string("a refusal is ConfigInvalid, not ") + std::string(error_name(e.kind())));
        require(std::string_view(e.what()).starts_with(std::string(kSource) + ":"),
                std::string("a refusal names the source: ") + e.what());
        return 0;
    }
    check_config(config);
    check_plan(config);
    return 0;
}
