// SPDX-License-Identifier: Apache-2.0
#pragma once
// Provider keys in sessions: the environment names under which the model
// providers' clients read an API key or login token, and preflight's
// warning for every adapter whose sessions would hold one themselves. A
// `network: host` session gets the key in the agent's environment, where
// every tool the model runs can read it (docs/security-model.md, "Known
// exposure"); a `network: gateway` profile keeps it in the egress gateway.

#include "core/config/config.h"
#include "core/ops/preflight.h"

#include <string_view>
#include <vector>

namespace nr::core {

// Whether `name` is one of the well-known provider key names.
bool is_provider_key_name(std::string_view name);

// One passed check with a warning (kCheckProviderKey) per adapter with
// `network: host` that lists a provider key name in credential_env, in the
// order of the configuration's adapter names; none for other adapters.
std::vector<CheckResult> judge_provider_keys(const Config& config);

} // namespace nr::core
