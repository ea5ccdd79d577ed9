// SPDX-License-Identifier: Apache-2.0
#include "core/launch/launch_spec.h"

#include "core/base/error.h"
#include "core/base/path_policy.h"
#include "core/base/relative_path.h"

#include <algorithm>
#include <string_view>

namespace nr::core {

namespace {

constexpr std::size_t kMaxSyscallName = 64;

[[noreturn]] void refuse(std::string_view field, const std::string& problem)
{
    fail(ErrorKind::LaunchFailed, "launch spec: " + std::string(field) + ": " + problem);
}

void require_no_nul(std::string_view field, std::string_view text)
{
    if (text.find('\0') != std::string_view::npos) {
        refuse(field, "contains a NUL byte");
    }
}

// The path validators refuse with InvalidPath; here any refusal is the
// spec's, so it becomes LaunchFailed naming the field.
void require_absolute(std::string_view field, const std::string& path)
{
    try {
        validate_absolute_path(path, field);
    } catch (const Error& e) {
        fail(ErrorKind::LaunchFailed, std::string("launch spec: ") + e.what());
    }
}

void require_relative(std::string_view field, const std::string& path)
{
    try {
        if (join_components(parse_relative_path(path, field)) == path) {
            return;
        }
    } catch (const Error& e) {
        fail(ErrorKind::LaunchFailed, std::string("launch spec: ") + e.what());
    }
    refuse(field, "'" + path + "' is not a canonical relative path");
}

bool is_syscall_name(std::string_view name)
{
    return !name.empty() && name.size() <= kMaxSyscallName && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
}

SyscallRule decode_rule(const SyscallRuleWire& wire)
{
    if (!is_syscall_name(wire.name)) {
        refuse("denied_syscalls", "'" + wire.name + "' is not a syscall name");
    }
    const auto field = "denied_syscalls[" + wire.name + "]";
    if (wire.errno_value < 1 || wire.errno_value > kMaxErrno) {
        refuse(field, "errno " + std::to_string(wire.errno_value) + " is outside 1.." + std::to_string(kMaxErrno));
    }
    SyscallRule rule{wire.name, wire.errno_value, std::nullopt};
    // One condition is all a rule can say exactly; several would need to be
    // combined in a way the helper never meant.
    if (wire.conditions.size() > 1) {
        refuse(field, "has " + std::to_string(wire.conditions.size()) + " conditions, at most one is allowed");
    }
    if (!wire.conditions.empty()) {
        const auto& match = wire.conditions.front();
        if (match.index >= kSyscallArguments) {
            refuse(field, "argument index " + std::to_string(match.index) + " is above 5");
        }
        if ((match.value & ~match.mask) != 0) {
            refuse(field, "the value has bits outside the mask, so the rule could never match");
        }
        rule.when = match;
    }
    return rule;
}

// A base without paths protects nothing and would be ignored: refused so
// that what was sent is exactly what is applied.
ProtectedPaths decode_protected_paths(const LaunchSpecWire& wire)
{
    if (wire.protected_paths.empty()) {
        if (!wire.protected_base.empty()) {
            refuse("protected_base", "is set, but there are no protected paths");
        }
        return {};
    }
    require_absolute("protected_base", wire.protected_base);
    try {
        check_protected_paths(wire.protected_paths);
    } catch (const Error& e) {
        refuse("protected_paths", e.what());
    }
    return {wire.protected_base, wire.protected_paths};
}

} // namespace

LaunchSpecWire encode_launch_spec(const LaunchSpec& spec)
{
    LaunchSpecWire wire;
    wire.bwrap_argv = spec.bwrap_argv;
    wire.environment = spec.environment;
    for (const auto& rule : spec.seccomp.denied) {
        SyscallRuleWire out{rule.name, rule.errno_value, {}};
        if (rule.when) {
            out.conditions.push_back(*rule.when);
        }
        wire.denied_syscalls.push_back(std::move(out));
    }
    wire.kill_foreign_abis = spec.seccomp.kill_foreign_abis;
    wire.dirs_base = spec.dirs.base;
    wire.private_dirs = spec.dirs.relative;
    wire.admission_queue = spec.admission.queue_dir;
    wire.checked_dirs = spec.checked_dirs;
    wire.gateway_port = spec.gateway_port;
    wire.protected_base = spec.protected_paths.base;
    wire.protected_paths = spec.protected_paths.paths;
    return wire;
}

LaunchSpec decode_launch_spec(const LaunchSpecWire& wire)
{
    LaunchSpec spec;
    if (wire.bwrap_argv.empty()) {
        refuse("bwrap_argv", "is empty");
    }
    for (const auto& arg : wire.bwrap_argv) {
        require_no_nul("bwrap_argv", arg);
    }
    require_absolute("bwrap_argv[0]", wire.bwrap_argv.front());
    spec.bwrap_argv = wire.bwrap_argv;

    for (const auto& entry : wire.environment) {
        require_no_nul("environment", entry);
        const auto equals = entry.find('=');
        if (equals == std::string::npos || equals == 0) {
            refuse("environment", "an entry is not NAME=VALUE");
        }
    }
    spec.environment = wire.environment;

    for (const auto& rule : wire.denied_syscalls) {
        spec.seccomp.denied.push_back(decode_rule(rule));
    }
    spec.seccomp.kill_foreign_abis = wire.kill_foreign_abis;

    require_absolute("dirs_base", wire.dirs_base);
    spec.dirs.base = wire.dirs_base;
    for (const auto& dir : wire.private_dirs) {
        require_relative("private_dirs", dir);
    }
    spec.dirs.relative = wire.private_dirs;

    if (!wire.admission_queue.empty()) {
        require_relative("admission_queue", wire.admission_queue);
    }
    spec.admission.queue_dir = wire.admission_queue;

    for (const auto& dir : wire.checked_dirs) {
        require_absolute("checked_dirs", dir.path);
    }
    spec.checked_dirs = wire.checked_dirs;
    spec.gateway_port = wire.gateway_port;
    spec.protected_paths = decode_protected_paths(wire);
    return spec;
}

} // namespace nr::core
