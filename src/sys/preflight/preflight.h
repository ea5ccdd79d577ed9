// SPDX-License-Identifier: Apache-2.0
#pragma once
// Observes the host for each preflight check and hands the facts to the
// core's judge_* decisions. Shared by `native-runtimectl preflight` and the
// helper's gate before its first session.

#include "core/config/config.h"
#include "core/ops/dropin.h"
#include "core/ops/preflight.h"
#include "core/plan/session_plan.h"
#include "sys/systemd/systemd_manager.h"

#include <string>
#include <vector>

namespace nr::sys {

// Needs root (forks, switches to `user`, tries a user + mount namespace).
core::CheckResult check_userns(const core::RunAsUser& user);

core::CheckResult check_bwrap(const core::Config& config);

core::CheckResult check_protected_hardlinks();

core::CheckResult check_systemd_version(SystemdManager& systemd);

// The Landlock ABI of this kernel against the launcher's need. Meaningful
// only unconfined (root's shell): the helper's own SystemCallFilter= may
// refuse the call, so the helper leaves this to the canary's launcher.
core::CheckResult check_landlock();

// What /sys/fs/cgroup is (statfs) and, on a v2-only host, its controllers.
core::CheckResult check_cgroups();

// The command the preflight canary runs: /usr/bin/true or /bin/true when a
// read-only grant contains it, "" otherwise. The canary itself is run by
// the helper (daemon/preflight_gate), the only process that can hand its
// launcher a launch spec.
std::string canary_command(const core::Config& config);

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
