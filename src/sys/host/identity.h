// SPDX-License-Identifier: Apache-2.0
#pragma once
// NSS lookups that turn a bus-supplied UID into names the core can compare
// with the configuration. The UID itself always comes from the kernel via
// the bus credentials; only the name/group mapping comes from NSS.

#include <optional>
#include <string>

#include "core/plan/caller_policy.h"
#include "core/plan/session_plan.h"

namespace nr::sys {

// Caller identity for `uid` (name empty when NSS does not know the uid).
core::CallerIdentity lookup_caller(uid_t uid);

// Resolves a user name; nullopt when unknown.
std::optional<core::RunAsUser> lookup_user(const std::string& name);

} // namespace nr::sys
