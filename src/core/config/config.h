// SPDX-License-Identifier: Apache-2.0
#pragma once
// The operator's configuration, as a plain value. Parsing is strict: an
// unknown key, a wrong type or a missing required key is an error naming the
// file, line and key, because a silently ignored typo in a security policy
// is a weaker policy nobody asked for.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/network_policy.h"
#include "core/gateway/egress.h"
#include "core/launch/host_auth.h"
#include "core/launch/protected_paths.h"

namespace nr::core {

struct SessionLimits {
    std::uint64_t memory_max_bytes = 2ULL << 30U;
    std::uint64_t tasks_max = 512;
    std::uint32_t cpu_quota_percent = 100;
    std::uint64_t runtime_max_sec = 3600;
    std::uint64_t tmp_size_bytes = 256ULL << 20U;
};

struct AdapterProfile {
    std::string name;
    std::string executable;
    std::vector<std::string> read_only_paths;
    std::vector<std::string> credential_env;
    // Owner-bound provider session directories, each a path template with
    // exactly one "{owner}"; the session's own one is mounted read-write.
    std::vector<std::string> session_dirs;
    // Paths in the owner's home this adapter's sessions may not change
    // (core/launch/protected_paths.h), in the order the config lists them.
    std::vector<ProtectedPath> protected_home_paths;
    NetworkMode network = NetworkMode::Host;
    // What a `network: gateway` session may reach through the gateway;
    // refused at load for any other network mode.
    EgressPolicy egress;
    bool nested_userns = false;
    // Whether the adapter's sessions outlive the worker connection that
    // started them (`on_worker_disconnect: keep`); by default they stop.
    bool keep_on_worker_disconnect = false;
    // The adapter's own limits: the global ones with this profile's
    // `limits` keys applied on top (e.g. a shorter runtime for a probe).
    std::optional<SessionLimits> limits;
    // Whether sessions take turns on the adapter's shared host login.
    HostAuth host_auth;
};

// File operations the helper performs on owners' trees for the worker
// (docs/file-operations.md).
struct FileOperations {
    // Largest file read, written, snapshotted or diffed.
    std::uint64_t max_bytes = 64ULL << 20U;
    // The root-only HMAC key of edit receipts; created when missing.
    std::string receipt_key = "/var/lib/native-runtime/receipt.key";
    // How long an edit handle (BeginEdit -> RecordEdit) and a receipt
    // (RecordEdit -> Diff/Revert) stay usable, in seconds.
    std::uint64_t receipt_ttl_sec = 24ULL * 3600;
};

struct CallerPolicy {
    std::vector<std::string> users;
    std::vector<std::string> groups;
    // Users a root caller may name as the session's run-as user.
    std::vector<std::string> run_as_users;
};

// Caps on everything one owner's sessions use together (the owner's slice),
// so that one owner cannot starve the others; unset means no owner cap.
struct OwnerLimits {
    std::optional<std::uint64_t> memory_max_bytes;
    std::optional<std::uint64_t> tasks_max;
};

struct Config {
    std::string source; // file name, for messages
    std::string data_dir;
    std::string bwrap_path = "/usr/bin/bwrap";
    // Unset: the helper stays until it is stopped. Idle, it costs no
    // wakeup and about 12 MiB; every activation after an idle exit costs
    // the launch that triggers it about 280 ms (docs/configuration.md).
    std::optional<std::uint32_t> idle_timeout_sec;
    std::string default_path = "/usr/local/bin:/usr/bin:/bin";
    CallerPolicy callers;
    std::vector<std::string> read_only_paths;
    std::vector<std::string> hidden_paths;
    // Local destinations host-network sessions may still reach (DNS
    // resolver, MCP gateway): IPAddressAllow= over the special-use deny list.
    std::vector<IpPrefix> allowed_addresses;
    // Name of the signed MCP session token variable every adapter may get.
    std::string mcp_token_env;
    // Application master secret names: refused for every request, and a
    // config that lists one as an adapter credential is rejected.
    std::vector<std::string> forbidden_env;
    // Whether http(s)_proxy/ALL_PROXY/NO_PROXY may be passed to sessions.
    bool proxy_env = false;
    SessionLimits limits;
    OwnerLimits owner_limits;
    std::map<std::string, AdapterProfile, std::less<>> adapters;
    // Every adapter's protected_home_paths together: what every session
    // gets protected, since all sessions of an owner share one home
    // (core/launch/protected_paths.h, merge_protected_paths).
    std::vector<ProtectedPath> protected_home_paths;
    FileOperations files;
    // The file snapshot dir shared by the application's units (mode 2770);
    // empty when not configured. The late drop-in grants it to app units.
    std::string snapshot_dir;
    // The application's units that get the late drop-in; preflight checks
    // that it is in effect on each.
    std::vector<std::string> app_units;
    // The egress gateway every `network: gateway` adapter goes through.
    GatewaySettings gateway;
};

inline constexpr std::string_view kDefaultConfigPath = "/etc/native-runtime/config.yaml";

// Throws Error(ConfigInvalid) with "<source>:<line>: <key>: <problem>".
Config parse_config(std::string_view yaml_text, std::string_view source);

// "/srv/codex/{owner}/sessions" with owner "alice" -> "/srv/codex/alice/sessions".
// Expects a template that parse_config accepted.
std::string expand_owner_template(const std::string& path_template, const std::string& owner);

// True when the expansion of `path_template` for some valid owner id
// overlaps `path` (lies within it or contains it). Expects an accepted
// template and a validated absolute path.
bool owner_template_overlaps(const std::string& path_template, const std::string& path);

// "512M", "2G", "1024", "64K" -> bytes. Throws std::invalid_argument.
std::uint64_t parse_byte_size(std::string_view text);

} // namespace nr::core
