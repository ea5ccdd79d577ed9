// SPDX-License-Identifier: Apache-2.0
#include "core/config/env_names.h"

#include <algorithm>
#include <array>

namespace nr::core {

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

} // namespace nr::core
