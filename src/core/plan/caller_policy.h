// SPDX-License-Identifier: Apache-2.0
#pragma once
// Who may start sessions, and as which user. The caller's identity comes from
// the bus credentials (resolved by the adapter through NSS), never from the
// request payload; the payload may only *name* a run-as user, and only a root
// caller may do that.

#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

#include "core/config/config.h"

namespace nr::core {

struct CallerIdentity {
    uid_t uid = 0;
    std::string user_name;                // from NSS for uid
    std::vector<std::string> group_names; // primary and supplementary, from NSS
};

// Returns the user name the session must run as. Throws Error(AccessDenied)
// when the caller is not configured, when a non-root caller names another
// user, or when a root caller names no user or one outside run_as_users.
std::string decide_run_as_user(const CallerPolicy& policy, const CallerIdentity& caller,
                               std::string_view requested_run_as);

// The user the preflight canary runs as: `requested` when named, else the
// first of callers.run_as_users, else of callers.users, else "nobody". Any
// user will do: the canary shows what the host and the launcher can do, and
// its unit is planned like every session's.
std::string canary_user_name(const CallerPolicy& policy, std::string_view requested);

// Whether the caller may act on a session that runs as `session_uid`
// (stop, inspect): root, or the same uid.
bool may_manage_session(uid_t caller_uid, uid_t session_uid);

// Whether `caller_uid` may act on a session unit whose User= is `unit_user`
// (stop, inspect): root, or that user. The helper always writes User= as a
// decimal uid; any other value (empty, a name, a sign, a leading zero)
// belongs to no one and is refused for every caller, root included.
bool may_access_session(uid_t caller_uid, std::string_view unit_user);

} // namespace nr::core
