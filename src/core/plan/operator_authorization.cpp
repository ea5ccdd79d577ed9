// SPDX-License-Identifier: Apache-2.0
#include "core/plan/operator_authorization.h"

#include "core/journal/journal_fields.h"
#include "core/plan/caller_policy.h"

#include <charconv>

namespace nr::core {

namespace {

// The same reading of User= as may_access_session: a plain decimal uid.
bool names_an_owner(std::string_view unit_user)
{
    uid_t uid = 0;
    const auto* end = unit_user.data() + unit_user.size();
    const auto [ptr, ec] = std::from_chars(unit_user.data(), end, uid);
    return !unit_user.empty() && ec == std::errc() && ptr == end && !(unit_user.size() > 1 && unit_user.front() == '0');
}

std::string optional_id(const auto& value)
{
    return value ? std::to_string(*value) : std::string("?");
}

} // namespace

std::string_view polkit_action_id(OperatorAction action)
{
    switch (action) {
    case OperatorAction::ManageSessions: return "org.metis.NativeRuntime1.manage-sessions";
    case OperatorAction::RunCanary: return "org.metis.NativeRuntime1.run-canary";
    }
    fail(ErrorKind::InvalidArgument, "unknown operator action");
}

OperatorVerdict stop_session_verdict(uid_t caller_uid, std::string_view unit_user)
{
    if (may_access_session(caller_uid, unit_user)) {
        return OperatorVerdict::Allowed;
    }
    // A unit that belongs to no one is refused even to root: polkit cannot
    // grant more than root has.
    return names_an_owner(unit_user) ? OperatorVerdict::AskPolkit : OperatorVerdict::Refused;
}

OperatorVerdict run_canary_verdict(uid_t caller_uid)
{
    return caller_uid == 0 ? OperatorVerdict::Allowed : OperatorVerdict::AskPolkit;
}

std::uint32_t polkit_check_flags(bool caller_allows_interaction)
{
    return caller_allows_interaction ? kPolkitAllowUserInteraction : 0;
}

bool polkit_may_ask(std::size_t pending_total, std::size_t pending_of_caller)
{
    return pending_total < kPolkitPendingTotal && pending_of_caller < kPolkitPendingPerCaller;
}

PolkitOutcome polkit_outcome(const PolkitReply& reply)
{
    if (!reply.error_name.empty()) {
        return PolkitOutcome::Unavailable;
    }
    if (reply.is_authorized) {
        return PolkitOutcome::Authorized;
    }
    return reply.is_challenge ? PolkitOutcome::Challenge : PolkitOutcome::NotAuthorized;
}

std::string_view polkit_outcome_name(PolkitOutcome outcome)
{
    switch (outcome) {
    case PolkitOutcome::Authorized: return "authorized";
    case PolkitOutcome::NotAuthorized: return "not-authorized";
    case PolkitOutcome::Challenge: return "challenge";
    case PolkitOutcome::Unavailable: return "unavailable";
    }
    fail(ErrorKind::InvalidArgument, "unknown polkit outcome");
}

LogRecord polkit_check_record(std::string_view method, OperatorAction action, const Caller& caller,
                              const SessionRef& ref, const PolkitReply& reply)
{
    const auto outcome = polkit_outcome(reply);
    const auto result = std::string(polkit_outcome_name(outcome));
    const auto action_id = std::string(polkit_action_id(action));
    std::string message = "polkit: " + action_id + " for " + std::string(method) + " from uid " +
                          optional_id(caller.uid) + " pid " + optional_id(caller.pid) + ": " + result;
    if (outcome == PolkitOutcome::Unavailable) {
        message += " (" + reply.error_name + ")";
    }
    auto record = log_record(LogEvent::PolkitChecked, message);
    record.priority = polkit_grants(outcome) ? Priority::Notice : Priority::Warning;
    record.fields.emplace_back(kFieldMethod, std::string(method));
    record.fields.emplace_back(kFieldPolkitAction, action_id);
    record.fields.emplace_back(kFieldPolkitResult, result);
    if (outcome == PolkitOutcome::Unavailable) {
        record.fields.emplace_back(kFieldPolkitError, reply.error_name);
    }
    if (caller.uid) {
        record.fields.emplace_back(kFieldCallerUid, std::to_string(*caller.uid));
    }
    if (caller.pid) {
        record.fields.emplace_back(kFieldCallerPid, std::to_string(*caller.pid));
    }
    add_session(record, ref);
    return record;
}

} // namespace nr::core
