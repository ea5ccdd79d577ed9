// SPDX-License-Identifier: Apache-2.0
#include "sys/bus/launch_spec_bus.h"

namespace nr::sys {

ClaimReply to_claim_reply(const core::LaunchSpecWire& wire)
{
    std::vector<SyscallRuleBus> rules;
    for (const auto& rule : wire.denied_syscalls) {
        std::vector<ArgumentMatchBus> conditions;
        for (const auto& match : rule.conditions) {
            conditions.emplace_back(match.index, match.mask, match.value);
        }
        rules.emplace_back(rule.name, rule.errno_value, std::move(conditions));
    }
    std::vector<CheckedDirBus> checked;
    for (const auto& dir : wire.checked_dirs) {
        checked.emplace_back(dir.path, dir.device, dir.inode);
    }
    std::vector<ProtectedPathBus> protected_paths;
    for (const auto& path : wire.protected_paths) {
        protected_paths.emplace_back(path.relative, path.directory);
    }
    return {wire.bwrap_argv,   wire.environment,    std::move(rules),          wire.kill_foreign_abis,
            wire.dirs_base,    wire.private_dirs,   wire.admission_queue,      std::move(checked),
            wire.gateway_port, wire.protected_base, std::move(protected_paths)};
}

core::LaunchSpecWire from_claim_reply(const ClaimReply& reply)
{
    core::LaunchSpecWire wire;
    const auto& [argv, environment, rules, kill_foreign_abis, dirs_base, private_dirs, admission_queue, checked,
                 gateway_port, protected_base, protected_paths] = reply;
    wire.bwrap_argv = argv;
    wire.environment = environment;
    for (const auto& rule : rules) {
        core::SyscallRuleWire out{rule.get<0>(), rule.get<1>(), {}};
        for (const auto& match : rule.get<2>()) {
            out.conditions.push_back({match.get<0>(), match.get<1>(), match.get<2>()});
        }
        wire.denied_syscalls.push_back(std::move(out));
    }
    wire.kill_foreign_abis = kill_foreign_abis;
    wire.dirs_base = dirs_base;
    wire.private_dirs = private_dirs;
    wire.admission_queue = admission_queue;
    for (const auto& dir : checked) {
        wire.checked_dirs.push_back({dir.get<0>(), dir.get<1>(), dir.get<2>()});
    }
    wire.gateway_port = gateway_port;
    wire.protected_base = protected_base;
    for (const auto& path : protected_paths) {
        wire.protected_paths.push_back({path.get<0>(), path.get<1>()});
    }
    return wire;
}

void return_claim(ClaimResult& result, const ClaimReply& reply)
{
    std::apply([&result](const auto&... fields) { result.returnResults(fields...); }, reply);
}

} // namespace nr::sys
