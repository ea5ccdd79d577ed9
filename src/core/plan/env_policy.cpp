// SPDX-License-Identifier: Apache-2.0
#include "core/plan/env_policy.h"

#include "core/base/error.h"

#include <algorithm>
#include <array>

namespace nr::core {

namespace {

constexpr std::size_t kMaxEnvValue = std::size_t{32} * 1024;
constexpr std::size_t kMaxEnvCount = 64;

} // namespace

std::vector<std::string> build_session_environment(const Config& config, const AdapterProfile& adapter,
                                                   const std::map<std::string, std::string>& requested,
                                                   std::string_view run_as_user, std::string_view home)
{
    if (requested.size() > kMaxEnvCount) {
        fail(ErrorKind::InvalidEnvironment, "more than 64 environment variables requested");
    }
    std::map<std::string, std::string> env;
    for (const auto& [name, value] : requested) {
        if (!is_valid_env_name(name)) {
            fail(ErrorKind::InvalidEnvironment, "environment variable name is not valid: " + name);
        }
        // A gateway session's proxy variables are the plan's own: they point
        // at its gateway, and a worker's would route around it.
        const bool proxy_allowed =
            config.proxy_env && adapter.network != NetworkMode::Gateway && is_proxy_env_name(name);
        const bool master_secret =
            std::find(config.forbidden_env.begin(), config.forbidden_env.end(), name) != config.forbidden_env.end();
        if ((is_forbidden_env_name(name) && !proxy_allowed) || is_computed_env_name(name) || master_secret) {
            fail(ErrorKind::InvalidEnvironment, "environment variable " + name + " may not be set by the caller");
        }
        const bool own_credential = std::find(adapter.credential_env.begin(), adapter.credential_env.end(), name) !=
                                    adapter.credential_env.end();
        const bool mcp_token = !config.mcp_token_env.empty() && name == config.mcp_token_env;
        if (!own_credential && !mcp_token && !proxy_allowed && !is_operational_env_name(name)) {
            fail(ErrorKind::InvalidEnvironment,
                 "environment variable " + name + " is not allowed for adapter " + adapter.name);
        }
        if (value.size() > kMaxEnvValue) {
            fail(ErrorKind::InvalidEnvironment, "value of " + name + " is longer than 32 KiB");
        }
        if (value.find_first_of(std::string_view("\0\r\n", 3)) != std::string::npos) {
            fail(ErrorKind::InvalidEnvironment, "value of " + name + " contains NUL, CR or LF");
        }
        env[name] = value;
    }
    const std::string home_dir(home);
    env["PATH"] = config.default_path;
    env["HOME"] = home_dir;
    env["TMPDIR"] = "/tmp";
    env["USER"] = std::string(run_as_user);
    env["LOGNAME"] = std::string(run_as_user);
    env["XDG_CONFIG_HOME"] = home_dir + "/.config";
    env["XDG_CACHE_HOME"] = home_dir + "/.cache";
    env["XDG_DATA_HOME"] = home_dir + "/.local/share";
    env["XDG_STATE_HOME"] = home_dir + "/.local/state";
    std::vector<std::string> out;
    out.reserve(env.size());
    for (const auto& [name, value] : env) {
        out.push_back(name + "=" + value);
    }
    return out;
}

} // namespace nr::core
