// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which environment variable names exist and which are dangerous: the
// configuration refuses a profile that lists a forbidden name at load, and
// the planner refuses a request that sets one (core/plan/env_policy.h).

#include <string_view>

namespace nr::core {

// [A-Za-z_][A-Za-z0-9_]*, at most 128 characters.
bool is_valid_env_name(std::string_view name);

// PATH, HOME, TMPDIR, USER, LOGNAME, SHELL and XDG_*: the planner computes
// them, so neither a request nor a profile may name them.
bool is_computed_env_name(std::string_view name);

// Names a request may set for any adapter (besides the adapter's own
// credential names): locale and terminal settings only.
bool is_operational_env_name(std::string_view name);

// http(s)_proxy, ALL_PROXY, NO_PROXY in either case: forbidden unless the
// config sets sandbox.proxy_env.
bool is_proxy_env_name(std::string_view name);

// Names that change which TLS peers a client trusts or whether it checks
// them at all (CA bundle paths, "verify off" switches, OpenSSL
// configuration, key logging), in the spellings Node, OpenSSL, Python,
// curl, git, pip, npm, cargo and the AWS SDKs read. A worker that could set
// one could point the agent's API traffic, credentials included, at a
// man in the middle. Proxy names are not in this list: they redirect
// traffic but cannot make a client accept a certificate it would refuse
// (they are governed by sandbox.proxy_env).
bool is_tls_weakening_env_name(std::string_view name);

// Names refused even when an adapter profile lists them (a config that
// lists one in credential_env is refused at load): loader and bus names,
// interpreter hooks, proxies (unless sandbox.proxy_env) and every
// TLS-weakening name.
bool is_forbidden_env_name(std::string_view name);

} // namespace nr::core
