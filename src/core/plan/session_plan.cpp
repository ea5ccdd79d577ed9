// SPDX-License-Identifier: Apache-2.0
#include "core/plan/session_plan.h"

#include "core/base/error.h"
#include "core/base/ids.h"
#include "core/base/path_policy.h"
#include "core/base/unit_name.h"
#include "core/journal/journal_fields.h"
#include "core/launch/launcher_args.h"
#include "core/plan/env_policy.h"
#include "core/plan/gateway_plan.h"
#include "core/plan/unit_filesystem.h"
#include "core/plan/unit_syscalls.h"

#include <algorithm>

namespace nr::core {

namespace {

constexpr std::size_t kMaxArgs = 256;
constexpr std::size_t kMaxArgvBytes = std::size_t{128} * 1024;
constexpr std::uint64_t kUsecPerSec = 1000000;
constexpr std::uint64_t kCpuQuotaUsecPerPercent = 10000;

void validate_ids(const SessionRequest& request)
{
    validate_id(IdKind::Owner, request.owner);
    validate_id(IdKind::Chat, request.chat);
    validate_optional_id(IdKind::Job, request.job);
    validate_id(IdKind::Adapter, request.adapter);
}

std::string basename_of(const std::string& path)
{
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The command must be the adapter's executable; a bare name equal to its
// basename is accepted and replaced by the configured absolute path, so the
// agent never resolves its own binary through a PATH the session controls.
std::vector<std::string> resolve_agent_argv(const AdapterProfile& adapter, const std::vector<std::string>& argv)
{
    if (argv.empty()) {
        fail(ErrorKind::InvalidArgument, "argv must not be empty");
    }
    if (argv.size() > kMaxArgs) {
        fail(ErrorKind::InvalidArgument, "argv has more than 256 elements");
    }
    std::size_t total = 0;
    for (const auto& arg : argv) {
        total += arg.size() + 1;
        if (arg.find('\0') != std::string::npos) {
            fail(ErrorKind::InvalidArgument, "argv contains a NUL byte");
        }
    }
    if (total > kMaxArgvBytes) {
        fail(ErrorKind::InvalidArgument, "argv is larger than 128 KiB");
    }
    auto resolved = argv;
    if (resolved.front() != adapter.executable) {
        if (resolved.front() != basename_of(adapter.executable)) {
            fail(ErrorKind::InvalidArgument,
                 "command " + resolved.front() + " is not the executable of adapter " + adapter.name);
        }
        resolved.front() = adapter.executable;
    }
    return resolved;
}

std::string choose_workspace(const Config& config, const AdapterProfile& adapter, const SessionRequest& request,
                             const std::string& root, PrivateDirs& dirs)
{
    if (request.workspace.empty()) {
        dirs.relative.push_back("native-runtime/" + request.owner + "/chats/" + request.chat + "/workspace");
        return root + "/chats/" + request.chat + "/workspace";
    }
    validate_absolute_path(request.workspace, "workspace");
    if (request.workspace == "/") {
        fail(ErrorKind::InvalidPath, "workspace must not be /");
    }
    // bwrap mounts its own /proc, /dev and /tmp over whatever was bound
    // there, so a workspace inside them would silently be replaced.
    for (const auto* reserved : {"/proc", "/dev", "/tmp"}) {
        if (paths_overlap(request.workspace, reserved)) {
            fail(ErrorKind::InvalidPath,
                 "workspace " + request.workspace + " overlaps " + reserved + ", which the sandbox provides itself");
        }
    }
    auto hidden = config.hidden_paths;
    hidden.push_back(config.data_dir);
    for (const auto& absent : hidden) {
        if (paths_overlap(request.workspace, absent)) {
            fail(ErrorKind::InvalidPath,
                 "workspace " + request.workspace + " overlaps " + absent + ", which sessions must never see");
        }
    }
    auto grants = config.read_only_paths;
    grants.insert(grants.end(), adapter.read_only_paths.begin(), adapter.read_only_paths.end());
    for (const auto& grant : grants) {
        if (path_is_within(grant, request.workspace)) {
            fail(ErrorKind::InvalidPath, "workspace " + request.workspace + " contains the read-only path " + grant);
        }
    }
    return request.workspace;
}

// Each template names one directory per owner; only this owner's is
// mounted, so other owners' directories stay absent. One lying inside the
// app data dir is allowed (legacy provider state often lives there) but may
// not be the data dir itself or a configured hidden path.
std::vector<std::string> owner_session_dirs(const Config& config, const AdapterProfile& adapter,
                                            const std::string& owner)
{
    std::vector<std::string> dirs;
    for (const auto& path_template : adapter.session_dirs) {
        auto dir = expand_owner_template(path_template, owner);
        validate_absolute_path(dir, "session directory");
        if (path_is_within(config.data_dir, dir)) {
            fail(ErrorKind::InvalidPath, "session directory " + dir + " contains the app data dir " + config.data_dir);
        }
        for (const auto& absent : config.hidden_paths) {
            if (paths_overlap(dir, absent)) {
                fail(ErrorKind::InvalidPath,
                     "session directory " + dir + " overlaps " + absent + ", which sessions must never see");
            }
        }
        // Refused at load already (config.cpp); kept here so a plan can
        // never mount a writable directory over or under a read-only grant.
        auto grants = config.read_only_paths;
        grants.insert(grants.end(), adapter.read_only_paths.begin(), adapter.read_only_paths.end());
        for (const auto& grant : grants) {
            if (paths_overlap(dir, grant)) {
                fail(ErrorKind::InvalidPath, "session directory " + dir + " overlaps the read-only path " + grant);
            }
        }
        dirs.push_back(std::move(dir));
    }
    return dirs;
}

// Each protected path is mounted read-only over the home, and each
// directory between the home and one is bound onto itself: a mount point
// cannot be renamed or removed in the namespace that has it, so a session
// can neither move a protected file's parent away and put a new one in its
// place, nor swap a parent for a symlink that redirects a later session's
// mount. The path sort in core/launch/sandbox_args.cpp orders all of them after
// the home's own bind. A provider session directory overlapping one would
// either be mounted writable over it or be a second mount of the same
// directory, so it is refused.
// Every adapter's paths, not only this one's: the home is the owner's,
// whatever adapter a session runs (Config::protected_home_paths).
ProtectedPaths protect_home_paths(const Config& config, const std::string& home,
                                  const std::vector<std::string>& session_dirs, SandboxLayout& layout)
{
    ProtectedPaths protection;
    if (config.protected_home_paths.empty()) {
        return protection;
    }
    protection.base = home;
    protection.paths = config.protected_home_paths;
    for (const auto& path : protection.paths) {
        const auto mounted = join_path(home, path.relative);
        for (const auto& dir : session_dirs) {
            if (paths_overlap(dir, mounted)) {
                fail(ErrorKind::InvalidPath,
                     "session directory " + dir + " overlaps the protected home path " + protected_path_text(path));
            }
        }
        layout.read_only.push_back(mounted);
    }
    for (const auto& ancestor : protected_ancestors(protection.paths)) {
        layout.read_write.push_back(join_path(home, ancestor));
    }
    return protection;
}

// Host-network sessions reach the internet but no special-use range except
// the operator's allowed addresses; offline sessions have no network
// namespace of the host at all, and the unit denies everything besides.
// A gateway session's namespace has only a loopback, and the one address
// its processes need there is the gateway's listener: the unit's cgroup
// filter applies to their sockets in any namespace, so everything else
// stays denied even if a route appeared (docs/egress-gateway-design.md).
void add_network_properties(const Config& config, NetworkMode mode, UnitProperties& properties)
{
    if (mode == NetworkMode::Offline) {
        // The unit's own namespace, with only a loopback, from its first
        // exec on; bwrap makes another one inside it.
        properties.push_back({"PrivateNetwork", true});
    }
    if (mode == NetworkMode::Offline || mode == NetworkMode::Gateway) {
        properties.push_back({"IPAddressDeny", AddressList{{parse_ip_prefix("0.0.0.0/0"), parse_ip_prefix("::/0")}}});
        if (mode == NetworkMode::Gateway) {
            properties.push_back({"IPAddressAllow", AddressList{{parse_ip_prefix("127.0.0.1/32")}}});
        }
        return;
    }
    properties.push_back({"IPAddressDeny", AddressList{denied_destinations()}});
    if (!config.allowed_addresses.empty()) {
        properties.push_back({"IPAddressAllow", AddressList{config.allowed_addresses}});
    }
}

// The plan's own variables for a gateway session. None may collide with an
// admitted one: the config refuses such names at load and the environment
// policy refuses them in requests; checked again so the placeholder can
// never be silently replaced by a worker's value.
void add_gateway_environment(const Config& config, const AdapterProfile& adapter, const std::string& token,
                             std::vector<std::string>& environment)
{
    if (!is_gateway_token(token)) {
        fail(ErrorKind::LaunchFailed, "adapter " + adapter.name + " needs a gateway token, and none was made");
    }
    for (auto& entry : gateway_environment(adapter.egress, config.gateway.port, token)) {
        const auto name = entry.substr(0, entry.find('=') + 1);
        if (std::any_of(environment.begin(), environment.end(),
                        [&](const std::string& existing) { return existing.starts_with(name); })) {
            fail(ErrorKind::InvalidEnvironment, "environment variable " + name.substr(0, name.size() - 1) +
                                                    " is set by the gateway for adapter " + adapter.name);
        }
        environment.push_back(std::move(entry));
    }
    std::sort(environment.begin(), environment.end());
}

UnitProperties unit_properties_for(const SessionLimits& limits, const SessionPlan& plan, const HostFacts& host,
                                   const std::string& claim_token, const UnitFilesystemNeeds& needs)
{
    const bool by_channel = host.spec_delivery == SpecDelivery::HelperChannel;
    // Where systemd cannot pass the channel, native-runtime-claim asks the
    // helper for it and execs the launcher with it.
    const auto program = by_channel ? host.launcher_path : claim_path_beside(host.launcher_path);
    UnitProperties properties{
        {"Description",
         "native-runtime session owner=" + plan.owner + " chat=" + plan.chat + " adapter=" + plan.adapter},
        {"Slice", plan.slice},
        {"Type", std::string("exec")},
        {"User", std::to_string(plan.user.uid)},
        {"Group", std::to_string(plan.user.gid)},
        {"NoNewPrivileges", true},
        {"ProtectProc", std::string("invisible")},
        // bwrap must read /proc/sys/kernel/overflow{uid,gid}; ProcSubset=pid
        // hides them. The sandbox gets its own /proc in a new PID namespace.
        {"ProcSubset", std::string("all")},
        {"CapabilityBoundingSet", std::uint64_t{0}},
        {"AmbientCapabilities", std::uint64_t{0}},
        // Only seccomp properties that read no argument of a hot call, so
        // the kernel keeps deciding openat, read, stat, ... from its cache
        // (core/plan/unit_syscalls.h); LockPersonality=, RestrictSUIDSGID=,
        // RestrictNamespaces= and MemoryDenyWriteExecute= are left to the
        // launcher's program or cannot be set around bwrap, and
        // RestrictRealtime= is LimitRTPRIO=0 with no CAP_SYS_NICE: "One
        // cacheable filter stack" in docs/security-model.md.
        {"LimitRTPRIO", std::uint64_t{0}},
        // Not ProtectKernelTunables: bwrap --disable-userns writes
        // /proc/sys/user/max_user_namespaces inside the new user namespace
        // through the unit's /proc, and fails when it is read-only. The
        // sandbox's own /proc/sys is read-only (bwrap) and the session has
        // no capability that could write it.
        {"ProtectControlGroups", true},
        {"SystemCallArchitectures", std::vector<std::string>{"native"}},
        // Only root and the session's user are mapped (bwrap nests its own
        // user namespace inside); the device cgroup allows pseudo devices.
        {"PrivateUsers", true},
        {"DevicePolicy", std::string("closed")},
        {"KillMode", std::string("control-group")},
        {"CollectMode", std::string("inactive-or-failed")},
        {"MemoryMax", limits.memory_max_bytes},
        {"TasksMax", limits.tasks_max},
        {"CPUQuotaPerSecUSec", std::uint64_t{limits.cpu_quota_percent} * kCpuQuotaUsecPerPercent},
        {"RuntimeMaxUSec", limits.runtime_max_sec * kUsecPerSec},
        {"WorkingDirectory", std::string("/")},
        {"StandardInputFileDescriptor", StdioSlot::Input},
        {"StandardOutputFileDescriptor", StdioSlot::Output},
        {"StandardErrorFileDescriptor", StdioSlot::Error},
        {"LogExtraFields", JournalFields{session_journal_fields(plan)}},
        {"ExecStart", ExecCommand{program, launcher_argv(program, {claim_token, plan.launch.gateway_port})}},
    };
    if (by_channel) {
        properties.push_back({"ExtraFileDescriptors", PassedDescriptorSlot{kHelperChannelName}});
    }
    for (const auto& more : {unit_filesystem_properties(needs), unit_syscall_properties(host.unknown_syscalls)}) {
        properties.insert(properties.end(), more.begin(), more.end());
    }
    return properties;
}

// Everything the unit's view must keep: bwrap's read-only grants and the
// programs, and what it binds writable.
UnitFilesystemNeeds unit_needs(const Config& config, const HostFacts& host, const SandboxLayout& layout)
{
    UnitFilesystemNeeds needs{config.data_dir, layout.read_only, layout.read_write};
    needs.read_only.push_back(config.bwrap_path);
    needs.read_only.push_back(host.launcher_path);
    if (host.spec_delivery == SpecDelivery::Claim) {
        needs.read_only.push_back(claim_path_beside(host.launcher_path));
    }
    return needs;
}

} // namespace

std::string owner_root(const Config& config, const std::string& owner)
{
    return config.data_dir + "/native-runtime/" + owner;
}

std::vector<std::string> session_journal_fields(const SessionPlan& plan)
{
    std::vector<std::string> fields{field_assignment(kFieldOwner, plan.owner), field_assignment(kFieldChat, plan.chat),
                                    field_assignment(kFieldAdapter, plan.adapter)};
    if (!plan.job.empty()) {
        fields.push_back(field_assignment(kFieldJob, plan.job));
    }
    return fields;
}

SessionPlan plan_session(const Config& config, const SessionRequest& request, const RunAsUser& user,
                         const HostFacts& host, const std::string& claim_token, const std::string& gateway_token)
{
    validate_ids(request);
    const auto adapter_it = config.adapters.find(request.adapter);
    if (adapter_it == config.adapters.end()) {
        fail(ErrorKind::UnknownAdapter, "no adapter profile named " + request.adapter);
    }
    const auto& adapter = adapter_it->second;
    if (user.uid == 0) {
        fail(ErrorKind::AccessDenied, "sessions never run as root");
    }

    SessionPlan plan;
    plan.owner = request.owner;
    plan.chat = request.chat;
    plan.job = request.job;
    plan.adapter = request.adapter;
    plan.user = user;
    plan.unit_name = session_unit_name(request.owner, request.chat);
    plan.slice = owner_slice_name(request.owner);

    const auto root = owner_root(config, request.owner);
    plan.home = root + "/home";
    auto& dirs = plan.launch.dirs;
    dirs.base = config.data_dir;
    dirs.relative.push_back("native-runtime/" + request.owner + "/home");
    plan.workspace = choose_workspace(config, adapter, request, root, dirs);

    const auto agent_argv = resolve_agent_argv(adapter, request.argv);
    plan.launch.environment = build_session_environment(config, adapter, request.environment, user.name, plan.home);
    if (adapter.network == NetworkMode::Gateway) {
        add_gateway_environment(config, adapter, gateway_token, plan.launch.environment);
        plan.launch.gateway_port = config.gateway.port;
    }

    SandboxLayout layout;
    layout.read_only = config.read_only_paths;
    layout.read_only.insert(layout.read_only.end(), adapter.read_only_paths.begin(), adapter.read_only_paths.end());
    plan.session_dirs = owner_session_dirs(config, adapter, request.owner);
    refuse_admission_overlap(config.data_dir, plan.session_dirs);
    layout.read_write = {plan.home, plan.workspace};
    layout.read_write.insert(layout.read_write.end(), plan.session_dirs.begin(), plan.session_dirs.end());
    plan.launch.protected_paths = protect_home_paths(config, plan.home, plan.session_dirs, layout);
    layout.symlinks = host.root_symlinks;
    layout.working_dir = plan.workspace;
    const auto& limits = adapter.limits ? *adapter.limits : config.limits;
    layout.tmp_size_bytes = limits.tmp_size_bytes;
    layout.network = adapter.network;
    layout.nested_userns = adapter.nested_userns;
    plan.launch.bwrap_argv = bwrap_argv(config.bwrap_path, layout, agent_argv);
    plan.launch.seccomp = seccomp_policy_for(adapter);
    plan.launch.admission = admission_spec(adapter.host_auth, adapter.name);

    plan.properties = unit_properties_for(limits, plan, host, claim_token, unit_needs(config, host, layout));
    add_network_properties(config, adapter.network, plan.properties);
    return plan;
}

SessionPlan plan_canary(const Config& config, const RunAsUser& user, const HostFacts& host,
                        const std::string& claim_token, const std::string& command)
{
    if (config.adapters.empty()) {
        fail(ErrorKind::UnknownAdapter, "no adapter profile to run the preflight canary with");
    }
    if (user.uid == 0) {
        fail(ErrorKind::AccessDenied, "sessions never run as root");
    }
    const auto& adapter = config.adapters.begin()->second;
    SessionPlan plan;
    plan.adapter = adapter.name;
    plan.user = user;
    plan.unit_name = kCanaryUnit;
    plan.slice = std::string(kTopSlice);
    plan.launch.dirs.base = config.data_dir; // nothing to create beneath it

    // Only the host-wide grants: the canary checks the host and the launch
    // path, not each adapter's installation (an adapter grant that is
    // missing fails that adapter's sessions alone, not every session).
    SandboxLayout layout;
    layout.read_only = config.read_only_paths;
    layout.symlinks = host.root_symlinks;
    layout.working_dir = "/";
    const auto& limits = adapter.limits ? *adapter.limits : config.limits;
    layout.tmp_size_bytes = limits.tmp_size_bytes;
    // No gateway is registered for the canary: a gateway adapter's runs
    // offline, in a namespace bwrap makes, with every address denied.
    const auto network = adapter.network == NetworkMode::Gateway ? NetworkMode::Offline : adapter.network;
    layout.network = network;
    layout.nested_userns = adapter.nested_userns;
    plan.launch.bwrap_argv = bwrap_argv(config.bwrap_path, layout, {command});
    plan.launch.environment = {"PATH=/usr/bin:/bin"};
    plan.launch.seccomp = seccomp_policy_for(adapter);
    plan.launch.admission = AdmissionSpec{}; // never waits for a host-auth turn

    UnitProperties properties;
    for (auto& property : unit_properties_for(limits, plan, host, claim_token, unit_needs(config, host, layout))) {
        if (property.name == "Description") {
            property.value = std::string("native-runtime preflight canary");
        } else if (property.name == "RuntimeMaxUSec") {
            property.value = std::min(limits.runtime_max_sec, kCanaryRuntimeMaxSec) * kUsecPerSec;
        } else if (property.name == "LogExtraFields") {
            continue;
        }
        properties.push_back(std::move(property));
    }
    plan.properties = std::move(properties);
    add_network_properties(config, network, plan.properties);
    return plan;
}

} // namespace nr::core
