// SPDX-License-Identifier: Apache-2.0
#pragma once
// The session's environment is built, never inherited: the planner starts
// from nothing, adds operational variables it computes itself, then admits
// request variables only if their names are allowed for the adapter.
// Dangerous names are refused with a typed error rather than dropped, so a
// misconfigured worker learns about it instead of running with a surprise.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/config/config.h"
#include "core/config/env_names.h"

namespace nr::core {

// Validates request variables for `adapter` and returns the complete
// environment ("NAME=VALUE", sorted) for the agent: PATH, HOME, TMPDIR,
// USER, LOGNAME, XDG_* computed here, plus admitted request variables.
std::vector<std::string> build_session_environment(const Config& config, const AdapterProfile& adapter,
                                                   const std::map<std::string, std::string>& requested,
                                                   std::string_view run_as_user, std::string_view home);

} // namespace nr::core
