// SPDX-License-Identifier: Apache-2.0
#pragma once
// config + validated request -> everything needed to start one session:
// the transient unit (non-secret, world-readable) and the launch spec the
// launcher claims over the bus (may carry the adapter's credentials).

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

#include "core/config/config.h"
#include "core/journal/journal_fields.h"
#include "core/launch/launch_spec.h"
#include "core/launch/sandbox_args.h"
#include "core/launch/spec_delivery.h"
#include "core/plan/seccomp_rules.h"
#include "core/plan/unit_properties.h"

namespace nr::core {

struct SessionRequest {
    std::string owner;
    std::string chat;
    std::string job;
    std::string adapter;
    std::vector<std::string> argv;
    std::string workspace; // empty: the chat's default workspace in the owner tree
    std::map<std::string, std::string> environment;
};

struct RunAsUser {
    std::string name;
    uid_t uid = 0;
    gid_t gid = 0;
};

struct SessionPlan {
    std::string unit_name;
    std::string slice;
    std::string owner;
    std::string chat;
    std::string job;
    std::string adapter;
    std::string home;
    std::string workspace;
    // This owner's provider session directories (already expanded).
    std::vector<std::string> session_dirs;
    RunAsUser user;
    UnitProperties properties;
    LaunchSpec launch;
};

struct HostFacts {
    std::string launcher_path;
    std::vector<RootSymlink> root_symlinks;
    // Names of unit_denied_syscall_candidates() this host's libseccomp
    // cannot resolve (core/plan/unit_syscalls.h); empty: it knows them all.
    std::vector<std::string> unknown_syscalls;
    // From the running systemd's version (core/launch/spec_delivery.h).
    SpecDelivery spec_delivery = SpecDelivery::Claim;
};

// Where an owner's private tree lives: <data_dir>/native-runtime/<owner>.
std::string owner_root(const Config& config, const std::string& owner);

// Validates ids, adapter, argv, workspace (lexically) and environment, then
// plans. `claim_token` is the non-secret reference the launcher presents.
// `gateway_token` is the placeholder a `network: gateway` session gets
// instead of provider keys (core/plan/gateway_plan.h); it goes into the launch
// spec's environment only, never into a unit property. Throws Error with a
// kind for each refusal (LaunchFailed for a gateway adapter without a
// well-formed gateway token).
SessionPlan plan_session(const Config& config, const SessionRequest& request, const RunAsUser& user,
                         const HostFacts& host, const std::string& claim_token, const std::string& gateway_token = {});

// The preflight canary's unit. It is no session (no owner, chat or journal
// fields), so `list`, `logs` and adoption never take it for one.
inline constexpr const char* kCanaryUnit = "native-runtime-preflight.service";
inline constexpr std::uint64_t kCanaryRuntimeMaxSec = 30;

// The preflight canary: a session of the first adapter profile (by name)
// as plan_session plans it (the same unit hardening, limits, network
// properties, launcher and claim, seccomp policy and bwrap options), except
// that it runs `command` with only the host-wide read-only grants, no
// writable directory and no credentials, in the top slice, for at most
// kCanaryRuntimeMaxSec. `command` must lie inside one of those grants.
SessionPlan plan_canary(const Config& config, const RunAsUser& user, const HostFacts& host,
                        const std::string& claim_token, const std::string& command);

// The journal fields that tag a session (owner, chat, job, adapter).
std::vector<std::string> session_journal_fields(const SessionPlan& plan);

} // namespace nr::core
