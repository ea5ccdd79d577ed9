#include "core/env_policy.h"

#include "core/error.h"

#include <algorithm>
#include <array>

namespace nr::core {

namespace {

constexpr std::size_t kMaxEnvValue = std::size_t{32} * 1024;
constexpr std::size_t kMaxEnvCount = 64;

} // namespace

bool is_valid_env_name(std::string_view name)
{
    if (name.empty() || name.size() > 128 || (name.front() >= '0' && name.front() <= '9')) {
        return false;
    }
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
}

bool is_computed_env_name(std::string_view name)
{
    constexpr std::array<std::string_view, 6> kComputed{"PATH", "HOME", "TMPDIR", "USER", "LOGNAME", "SHELL"};
    return std::find(kComputed.begin(), kComputed.end(), name) != kComputed.end() || name.starts_with("XDG_");
}

bool is_operational_env_name(std::string_view name)
{
    return name == "LANG" || name == "LANGUAGE" || name == "TERM" || name == "TZ" || name == "COLORTERM" ||
           name == "NO_COLOR" || name.starts_with("LC_");
}

bool is_proxy_env_name(std::string_view name)
{
    constexpr std::array<std::string_view, 8> kProxy{"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY",
                                                     "ALL_PROXY",  "all_proxy",   "no_proxy",   "NO_PROXY"};
    return std::find(kProxy.begin(), kProxy.end(), name) != kProxy.end();
}

bool is_tls_weakening_env_name(std::string_view name)
{
    constexpr auto kTls = std::to_array<std::string_view>(
        {// Node.js (and tools built on it: the Codex, Claude Code and ACP clients)
         "NODE_TLS_REJECT_UNAUTHORIZED", "NODE_EXTRA_CA_CERTS",
         // OpenSSL and everything linked against it (a config file can also load engines/providers)
         "SSL_CERT_FILE", "SSL_CERT_DIR", "OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES", "SSLKEYLOGFILE",
         // Python
         "REQUESTS_CA_BUNDLE", "PYTHONHTTPSVERIFY", "HTTPLIB2_CA_CERTS", "PIP_CERT", "PIP_TRUSTED_HOST",
         // curl
         "CURL_CA_BUNDLE",
         // git (GIT_CONFIG_* can set http.sslVerify=false as well)
         "GIT_SSL_NO_VERIFY", "GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
         // npm / yarn / Deno
         "NPM_CONFIG_STRICT_SSL", "npm_config_strict_ssl", "NPM_CONFIG_CAFILE", "npm_config_cafile", "NPM_CONFIG_CA",
         "npm_config_ca", "YARN_STRICT_SSL", "DENO_CERT", "DENO_TLS_CA_STORE",
         // Rust, AWS SDKs, gRPC
         "CARGO_HTTP_CAINFO", "AWS_CA_BUNDLE", "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH"});
    return std::find(kTls.begin(), kTls.end(), name) != kTls.end();
}

bool is_forbidden_env_name(std::string_view name)
{
    constexpr std::array<std::string_view, 12> kExact{"NODE_OPTIONS", "PYTHONPATH",    "PYTHONSTARTUP", "BASH_ENV",
                                                      "ENV",          "SSH_AUTH_SOCK", "http_proxy",    "https_proxy",
                                                      "HTTP_PROXY",   "HTTPS_PROXY",   "ALL_PROXY",     "no_proxy"};
    return std::find(kExact.begin(), kExact.end(), name) != kExact.end() || name.starts_with("LD_") ||
           name.starts_with("DBUS_") || name == "all_proxy" || name == "NO_PROXY" || name == "PERL5OPT" ||
           name == "RUBYOPT" || name == "GCONV_PATH" || is_tls_weakening_env_name(name);
}

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
