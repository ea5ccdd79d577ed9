// SPDX-License-Identifier: Apache-2.0
#include "core/plan/caller_policy.h"

#include "core/base/error.h"

#include <algorithm>
#include <charconv>

namespace nr::core {

namespace {

bool contains(const std::vector<std::string>& list, std::string_view value)
{
    return std::find(list.begin(), list.end(), value) != list.end();
}

bool caller_is_configured(const CallerPolicy& policy, const CallerIdentity& caller)
{
    if (contains(policy.users, caller.user_name)) {
        return true;
    }
    return std::any_of(caller.group_names.begin(), caller.group_names.end(),
                       [&](const std::string& group) { return contains(policy.groups, group); });
}

} // namespace

std::string decide_run_as_user(const CallerPolicy& policy, const CallerIdentity& caller,
                               std::string_view requested_run_as)
{
    if (caller.uid == 0) {
        if (requested_run_as.empty()) {
            fail(ErrorKind::AccessDenied, "a root caller must name a run-as user; sessions never run as root");
        }
        if (requested_run_as == "root" || !contains(policy.run_as_users, requested_run_as)) {
            fail(ErrorKind::AccessDenied,
                 "run-as user " + std::string(requested_run_as) + " is not listed in callers.run_as_users");
        }
        return std::string(requested_run_as);
    }
    if (caller.user_name.empty() || !caller_is_configured(policy, caller)) {
        fail(ErrorKind::AccessDenied,
             "uid " + std::to_string(caller.uid) + " is not an allowed caller (callers.users/callers.groups)");
    }
    if (!requested_run_as.empty() && requested_run_as != caller.user_name) {
        fail(ErrorKind::AccessDenied, "only root may choose a run-as user");
    }
    return caller.user_name;
}

std::string canary_user_name(const CallerPolicy& policy, std::string_view requested)
{
    if (!requested.empty()) {
        return std::string(requested);
    }
    if (!policy.run_as_users.empty()) {
        return policy.run_as_users.front();
    }
    if (!policy.users.empty()) {
        return policy.users.front();
    }
    return "nobody";
}

bool may_manage_session(uid_t caller_uid, uid_t session_uid)
{
    return caller_uid == 0 || caller_uid == session_uid;
}

bool may_access_session(uid_t caller_uid, std::string_view unit_user)
{
    uid_t session_uid = 0;
    const auto* end = unit_user.data() + unit_user.size();
    const auto [ptr, ec] = std::from_chars(unit_user.data(), end, session_uid);
    if (unit_user.empty() || ec != std::errc() || ptr != end || (unit_user.size() > 1 && unit_user.front() == '0')) {
        return false;
    }
    return may_manage_session(caller_uid, session_uid);
}

} // namespace nr::core
