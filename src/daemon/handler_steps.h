// SPDX-License-Identifier: Apache-2.0
#pragma once
// The steps the helper's handlers share, each written once, the way
// hostnamed factors its setters: who is calling (from the bus, never the
// payload), as whom a session or file operation runs, whether the caller may
// act on a session, and undoing a start that did not complete.

#include <sdbus-c++/sdbus-c++.h>

#include <optional>
#include <string>
#include <sys/types.h>

#include "core/plan/caller_policy.h"
#include "core/plan/session_plan.h"
#include "daemon/claim_table.h"
#include "daemon/session_registry.h"
#include "sys/systemd/systemd_manager.h"

namespace nr::daemon {

// The sender of the call `object` is dispatching, as the bus reports it.
// AccessDenied without credentials.
uid_t require_caller_uid(const sdbus::IObject& object);
pid_t require_caller_pid(const sdbus::IObject& object);

// The user a call from `caller_uid` runs as when it names `requested`
// ("" for the default): core::decide_run_as_user picks the name from the
// caller policy, NSS gives its ids. AccessDenied when that user does not
// exist. StartSession and every Files handler resolve it here.
core::RunAsUser resolve_run_as_user(const core::CallerPolicy& policy, uid_t caller_uid, const std::string& requested);

// The canary's user (core::canary_user_name) with its ids from NSS.
// InvalidArgument when that user does not exist or is root.
core::RunAsUser resolve_canary_user(const core::CallerPolicy& policy, const std::string& requested);

// A HelperTrouble journal record about `unit`.
void log_trouble(const std::string& unit, const std::string& message);

// Undoes a session start that did not complete: withdraws the launch spec
// of `token` and the watch of `unit`; when systemd has the unit (`started`),
// also stops it and drops the reference its start took (AddRef=): a unit
// stopped before it left "inactive" would never look ended to housekeeping,
// so that reference would hold it loaded for good. Never throws: a stop
// that fails is logged.
void undo_start(ClaimTable& claims, SessionRegistry& sessions, sys::SystemdManager& systemd, const std::string& token,
                const std::string& unit, const std::optional<sdbus::ObjectPath>& started) noexcept;

// undo_start for the part of a start before systemd is asked: created
// before the launch spec is registered and the unit watched, it withdraws
// both unless commit() was called. The caller gets the error that unwound
// the start, not a session, so no end is reported.
class StartRollback {
public:
    StartRollback(ClaimTable& claims, SessionRegistry& sessions, sys::SystemdManager& systemd, std::string token,
                  std::string unit);
    ~StartRollback();
    StartRollback(const StartRollback&) = delete;
    StartRollback& operator=(const StartRollback&) = delete;
    StartRollback(StartRollback&&) = delete;
    StartRollback& operator=(StartRollback&&) = delete;

    void commit() { armed_ = false; }

private:
    ClaimTable& claims_;
    SessionRegistry& sessions_;
    sys::SystemdManager& systemd_;
    std::string token_;
    std::string unit_;
    bool armed_ = true;
};

} // namespace nr::daemon
