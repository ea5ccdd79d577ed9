// SPDX-License-Identifier: Apache-2.0
#pragma once
// Every NATIVE_RUNTIME_* journal field the three binaries write or match,
// in one place (docs/operator-guide.md shows how to query them). Writers
// and readers both name them from here, so a rename cannot split them.

#include <string>
#include <string_view>
#include <vector>

namespace nr::core {

// What a record is about (core::add_session; the unit's LogExtraFields=, so
// journald adds them to everything the session's own processes log).
inline constexpr const char* kFieldOwner = "NATIVE_RUNTIME_OWNER";
inline constexpr const char* kFieldChat = "NATIVE_RUNTIME_CHAT";
inline constexpr const char* kFieldJob = "NATIVE_RUNTIME_JOB";
inline constexpr const char* kFieldUnit = "NATIVE_RUNTIME_UNIT";
inline constexpr const char* kFieldAdapter = "NATIVE_RUNTIME_ADAPTER";

// The worker a session is bound to (LogExtraFields=; read back on adoption).
inline constexpr const char* kFieldWorker = "NATIVE_RUNTIME_WORKER";

// Who asked, from the bus credentials.
inline constexpr const char* kFieldCallerUid = "NATIVE_RUNTIME_CALLER_UID";
inline constexpr const char* kFieldCallerPid = "NATIVE_RUNTIME_CALLER_PID";
inline constexpr const char* kFieldRunAsUid = "NATIVE_RUNTIME_RUN_AS_UID";

// A refused request.
inline constexpr const char* kFieldMethod = "NATIVE_RUNTIME_METHOD";
inline constexpr const char* kFieldError = "NATIVE_RUNTIME_ERROR";

// How a session ended or was stopped.
inline constexpr const char* kFieldResult = "NATIVE_RUNTIME_RESULT";
inline constexpr const char* kFieldExitCode = "NATIVE_RUNTIME_EXIT_CODE";
inline constexpr const char* kFieldExitStatus = "NATIVE_RUNTIME_EXIT_STATUS";
inline constexpr const char* kFieldRuntimeUsec = "NATIVE_RUNTIME_RUNTIME_USEC";
inline constexpr const char* kFieldMemoryPeak = "NATIVE_RUNTIME_MEMORY_PEAK";
inline constexpr const char* kFieldTasksPeak = "NATIVE_RUNTIME_TASKS_PEAK";
inline constexpr const char* kFieldCpuUsageNsec = "NATIVE_RUNTIME_CPU_USAGE_NSEC";
inline constexpr const char* kFieldStopReason = "NATIVE_RUNTIME_STOP_REASON";

// Syscalls the launcher's supervised filter refused.
inline constexpr const char* kFieldSyscall = "NATIVE_RUNTIME_SYSCALL";
inline constexpr const char* kFieldErrno = "NATIVE_RUNTIME_ERRNO";
inline constexpr const char* kFieldDeniedPid = "NATIVE_RUNTIME_DENIED_PID";
inline constexpr const char* kFieldDeniedCount = "NATIVE_RUNTIME_DENIED_COUNT";
inline constexpr const char* kFieldDeniedTotal = "NATIVE_RUNTIME_DENIED_TOTAL";
inline constexpr const char* kFieldSuppressed = "NATIVE_RUNTIME_SUPPRESSED";
inline constexpr const char* kFieldDenials = "NATIVE_RUNTIME_DENIALS";

// The helper itself, its preflight gate, file edits and drop-ins.
inline constexpr const char* kFieldVersion = "NATIVE_RUNTIME_VERSION";
inline constexpr const char* kFieldPreflight = "NATIVE_RUNTIME_PREFLIGHT";
inline constexpr const char* kFieldPreflightCanary = "NATIVE_RUNTIME_PREFLIGHT_CANARY";
inline constexpr const char* kFieldReceipt = "NATIVE_RUNTIME_RECEIPT";
inline constexpr const char* kFieldDropinUnit = "NATIVE_RUNTIME_DROPIN_UNIT";

// A polkit check of an operator verb: the action id, the outcome
// (core::polkit_outcome_name) and, when polkit did not answer, the error.
inline constexpr const char* kFieldPolkitAction = "NATIVE_RUNTIME_POLKIT_ACTION";
inline constexpr const char* kFieldPolkitResult = "NATIVE_RUNTIME_POLKIT_RESULT";
inline constexpr const char* kFieldPolkitError = "NATIVE_RUNTIME_POLKIT_ERROR";

// The egress gateway: one record per request (refusals beyond a burst in a
// summary), a summary per session.
inline constexpr const char* kFieldGatewayHost = "NATIVE_RUNTIME_GATEWAY_HOST";
inline constexpr const char* kFieldGatewayMethod = "NATIVE_RUNTIME_GATEWAY_METHOD";
inline constexpr const char* kFieldGatewayStatus = "NATIVE_RUNTIME_GATEWAY_STATUS";
inline constexpr const char* kFieldGatewayRefused = "NATIVE_RUNTIME_GATEWAY_REFUSED";
inline constexpr const char* kFieldGatewayBytesIn = "NATIVE_RUNTIME_GATEWAY_BYTES_IN";
inline constexpr const char* kFieldGatewayBytesOut = "NATIVE_RUNTIME_GATEWAY_BYTES_OUT";
inline constexpr const char* kFieldGatewayDurationUsec = "NATIVE_RUNTIME_GATEWAY_DURATION_USEC";
inline constexpr const char* kFieldGatewayRequests = "NATIVE_RUNTIME_GATEWAY_REQUESTS";
// On a summary of a session's refusals that got no record of their own
// (core/gateway/refusal_tally.h): how many; _REFUSED= then has "reason=n ...".
inline constexpr const char* kFieldGatewayRefusals = "NATIVE_RUNTIME_GATEWAY_REFUSALS";
// On a budgeted owner's request records: the owner's budget, its window and
// how much of it was used in the window when the record was written.
inline constexpr const char* kFieldGatewayBudget = "NATIVE_RUNTIME_GATEWAY_BUDGET";
inline constexpr const char* kFieldGatewayBudgetWindowSec = "NATIVE_RUNTIME_GATEWAY_BUDGET_WINDOW_SEC";
inline constexpr const char* kFieldGatewayBudgetUsed = "NATIVE_RUNTIME_GATEWAY_BUDGET_USED";
// On a record of an exception the gateway caught at the top of a session's
// accept loop or of one connection: which of the two, and what was thrown.
inline constexpr const char* kFieldGatewayFault = "NATIVE_RUNTIME_GATEWAY_FAULT";
inline constexpr const char* kFieldGatewayFaultWhat = "NATIVE_RUNTIME_GATEWAY_FAULT_WHAT";

// "NAME=value": a journalctl match, or one entry of LogExtraFields=.
inline std::string field_assignment(std::string_view name, std::string_view value)
{
    return std::string(name).append("=").append(value);
}

// Value of NAME in a list of NAME=value fields ("" when absent); used to
// rebuild a session's identity from its unit's LogExtraFields.
std::string journal_field(const std::vector<std::string>& fields, std::string_view name);

} // namespace nr::core
