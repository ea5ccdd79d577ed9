#pragma once
// Observes the host for each preflight check and hands the facts to the
// core's judge_* decisions. Shared by `native-runtimectl preflight` and the
// helper's gate before its first session.

#include "core/config.h"
#include "core/dropin.h"
#include "core/preflight.h"
#include "core/session_plan.h"
#include "sys/systemd_manager.h"

#include <string>
#include <vector>

namespace nr::sys {

inline constexpr const char* kCanaryUnit = "native-runtime-preflight.service";

// Needs root (forks, switches to `user`, tries a user + mount namespace).
core::CheckResult check_userns(const core::RunAsUser& user);

core::CheckResult check_bwrap(const core::Config& config);

core::CheckResult check_protected_hardlinks();

core::CheckResult check_systemd_version(SystemdManager& systemd);

// Starts kCanaryUnit with the session hardening planned for `user` (the
// same core::plan_session code path) running bwrap with the configured
// read-only grants and /usr/bin/true; waits up to 30 s for its end.
core::CheckResult check_canary(SystemdManager& systemd, const core::Config& config, const core::RunAsUser& user,
                               const std::string& launcher_path);

// The launcher, the helper, bwrap and every read-only grant and adapter
// executable, with their ancestors, against `principal_names`.
core::CheckResult check_immutable(const core::Config& config, const std::vector<std::string>& code_paths,
                                  const std::vector<std::string>& principal_names);

core::CheckResult check_snapshot_dir(const core::Config& config, const std::string& group_name);

// The helper's own drop-in, read back from systemd for native-runtimed.service.
core::CheckResult check_helper_dropin(SystemdManager& systemd, const core::DropinValues& values);

core::CheckResult check_dropins(SystemdManager& systemd, const std::vector<std::string>& units,
                                const core::DropinValues& values);

// The users whose write access would break immutability: configured
// callers and run-as users.
std::vector<std::string> session_principals(const core::Config& config);

} // namespace nr::sys
