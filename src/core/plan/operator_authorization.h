// SPDX-License-Identifier: Apache-2.0
#pragma once
// The operator verbs the helper serves (stopping another owner's session,
// running the preflight canary) and how polkit may widen who can use them.
// Root and a session's own user never reach polkit; anyone else is allowed
// only when polkit says is_authorized. Any other answer, including no
// polkit at all, leaves today's refusal exactly as it was, so a host
// without polkitd behaves as before. The bus call itself is
// sys/systemd/polkit_authority.

#include "core/journal/log_event.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace nr::core {

// One polkit action per operator verb (units/org.metis.NativeRuntime1.policy).
enum class OperatorAction { ManageSessions, RunCanary };

// "org.metis.NativeRuntime1.manage-sessions", "...run-canary".
std::string_view polkit_action_id(OperatorAction action);

enum class OperatorVerdict {
    Allowed,   // by today's rule: root, or the session's own user
    AskPolkit, // today's rule refuses; polkit may still grant the action
    Refused,   // refused for everyone; polkit is not asked
};

// StopSession on a unit whose User= is `unit_user`: the owner or root may;
// another caller only through polkit. A unit with no valid owner
// (core::may_access_session) is refused for every caller, as today.
OperatorVerdict stop_session_verdict(uid_t caller_uid, std::string_view unit_user);

// RunCanary: root may; anyone else only through polkit.
OperatorVerdict run_canary_verdict(uid_t caller_uid);

// CheckAuthorization's flags: AllowUserInteraction (1) only when the
// caller's message allowed interactive authorization, else none.
inline constexpr std::uint32_t kPolkitAllowUserInteraction = 1;
std::uint32_t polkit_check_flags(bool caller_allows_interaction);

// How long the helper waits for polkit before it refuses (systemd's default
// method call timeout); other callers are served meanwhile.
inline constexpr std::chrono::seconds kPolkitTimeout{25};

// Checks that may wait for polkit at once: per calling uid, and in all.
// Each holds the caller's reply and a pending call to polkitd; without a
// bound, a caller in the bus policy's group could stack them until the
// broker's quota for the helper's own calls (to systemd among them) runs
// out. Over a bound polkit is not asked: the call gets today's refusal,
// and the record names kPolkitLimitError.
inline constexpr std::size_t kPolkitPendingPerCaller = 8;
inline constexpr std::size_t kPolkitPendingTotal = 64;
inline constexpr std::string_view kPolkitLimitError = "org.freedesktop.DBus.Error.LimitsExceeded";
bool polkit_may_ask(std::size_t pending_total, std::size_t pending_of_caller);

// CheckAuthorization's answer as the adapter saw it: a D-Bus error name
// (empty when polkit replied) or the reply's is_authorized/is_challenge.
struct PolkitReply {
    std::string error_name;
    bool is_authorized = false;
    bool is_challenge = false;
};

enum class PolkitOutcome {
    Authorized,    // is_authorized: the action is granted
    NotAuthorized, // polkit said no
    Challenge,     // polkit wants authentication no agent could give
    Unavailable,   // no polkit, an error or the timeout
};

PolkitOutcome polkit_outcome(const PolkitReply& reply);

// Only an explicit is_authorized grants; everything else is today's refusal.
inline bool polkit_grants(PolkitOutcome outcome)
{
    return outcome == PolkitOutcome::Authorized;
}

// "authorized", "not-authorized", "challenge", "unavailable" (the journal's
// NATIVE_RUNTIME_POLKIT_RESULT=).
std::string_view polkit_outcome_name(PolkitOutcome outcome);

// The journal record of one polkit check: the method, the action, the
// caller from the bus credentials, the session when there is one, the
// outcome and, when polkit could not answer, the D-Bus error's name (never
// its message, which could echo anything).
LogRecord polkit_check_record(std::string_view method, OperatorAction action, const Caller& caller,
                              const SessionRef& ref, const PolkitReply& reply);

} // namespace nr::core
