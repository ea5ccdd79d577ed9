// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the launch-spec decoder (core/launch/launch_spec.h), which
// the launcher runs on Launcher.Claim's reply before it applies anything.
// The helper is trusted, but the decoder is the launcher's last word on
// what a sandbox gets, so it must hold its contract on any field values.
//
// The input is a text form of the wire, one field per line, so the corpus
// stays readable:
//   argv TEXT | env TEXT | base TEXT | dir TEXT | queue TEXT | kill 0|1
//   rule NAME ERRNO [INDEX MASK VALUE]...   checked DEVICE INODE PATH
//   port NUMBER (gateway_port, 0-65535)
//   pbase TEXT (protected_base) | protect TEXT | protectdir TEXT
//   (a protected path naming a file or a directory)
// (numbers in decimal; TEXT and PATH are the rest of the line, any bytes).
// Lines that do not parse are skipped: the decoder then sees fewer fields.
//
// Checked: decode_launch_spec refuses only with LaunchFailed; an accepted
// wire encodes back to itself exactly, and the spec keeps the invariants
// the launcher relies on (an absolute bwrap, errno within 1..4095, at most
// one condition per rule on argument 0-5 whose value fits its mask,
// canonical relative private directories and queue, NAME=VALUE entries,
// at most 64 distinct, non-nested, canonical protected paths under an
// absolute base).

#include "core/base/error.h"
#include "core/base/relative_path.h"
#include "core/launch/launch_spec.h"
#include "fuzz_support.h"

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace nr::core;
using nr::fuzz::require;

template <typename T> bool number(std::string_view text, T& out)
{
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc() && ptr == end;
}

std::vector<std::string_view> words(std::string_view text)
{
    std::vector<std::string_view> out;
    while (!text.empty()) {
        const auto space = text.find(' ');
        out.push_back(text.substr(0, space));
        if (space == std::string_view::npos) {
            break;
        }
        text.remove_prefix(space + 1);
    }
    return out;
}

void add_rule(LaunchSpecWire& wire, std::string_view rest)
{
    const auto w = words(rest);
    if (w.size() < 2 || (w.size() - 2) % 3 != 0) {
        return;
    }
    SyscallRuleWire rule{std::string(w[0]), 0, {}};
    if (!number(w[1], rule.errno_value)) {
        return;
    }
    for (std::size_t i = 2; i + 2 < w.size(); i += 3) {
        ArgumentMatch match;
        if (!number(w[i], match.index) || !number(w[i + 1], match.mask) || !number(w[i + 2], match.value)) {
            return;
        }
        rule.conditions.push_back(match);
    }
    wire.denied_syscalls.push_back(std::move(rule));
}

void add_checked(LaunchSpecWire& wire, std::string_view rest)
{
    const auto first = rest.find(' ');
    const auto second = first == std::string_view::npos ? first : rest.find(' ', first + 1);
    CheckedDir dir;
    if (second == std::string_view::npos || !number(rest.substr(0, first), dir.device) ||
        !number(rest.substr(first + 1, second - first - 1), dir.inode)) {
        return;
    }
    dir.path = std::string(rest.substr(second + 1));
    wire.checked_dirs.push_back(std::move(dir));
}

LaunchSpecWire wire_from(std::string_view text)
{
    LaunchSpecWire wire;
    while (!text.empty()) {
        const auto newline = text.find('\n');
        const auto line = text.substr(0, newline);
        text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
        const auto space = line.find(' ');
        const auto tag = line.substr(0, space);
        const auto rest = space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
        if (tag == "argv") {
            wire.bwrap_argv.emplace_back(rest);
        } else if (tag == "env") {
            wire.environment.emplace_back(rest);
        } else if (tag == "base") {
            wire.dirs_base = std::string(rest);
        } else if (tag == "dir") {
            wire.private_dirs.emplace_back(rest);
        } else if (tag == "queue") {
            wire.admission_queue = std::string(rest);
        } else if (tag == "kill") {
            wire.kill_foreign_abis = rest == "1";
        } else if (tag == "rule") {
            add_rule(wire, rest);
        } else if (tag == "checked") {
            add_checked(wire, rest);
        } else if (tag == "port") {
            (void)number(rest, wire.gateway_port);
        } else if (tag == "pbase") {
            wire.protected_base = std::string(rest);
        } else if (tag == "protect" || tag == "protectdir") {
            wire.protected_paths.push_back({std::string(rest), tag == "protectdir"});
        }
    }
    return wire;
}

bool canonical_relative(const std::string& path)
{
    return join_components(parse_relative_path(path, "path")) == path;
}

void check_accepted(const LaunchSpecWire& wire, const LaunchSpec& spec)
{
    require(encode_launch_spec(spec) == wire, "an accepted wire encodes back to itself");
    require(!spec.bwrap_argv.empty() && spec.bwrap_argv.front().starts_with('/'), "bwrap is an absolute path");
    require(spec.dirs.base.starts_with('/'), "the dirs base is absolute");
    for (const auto& rule : spec.seccomp.denied) {
        require(rule.errno_value >= 1 && rule.errno_value <= kMaxErrno, "errno within 1..4095");
        require(!rule.name.empty(), "a rule names its syscall");
        if (rule.when) {
            require(rule.when->index < kSyscallArguments, "the argument index is 0-5");
            require((rule.when->value & ~rule.when->mask) == 0, "the value fits its mask");
        }
    }
    for (const auto& entry : spec.environment) {
        const auto equals = entry.find('=');
        require(equals != std::string::npos && equals > 0, "environment entries are NAME=VALUE");
        require(entry.find('\0') == std::string::npos, "no NUL in the environment");
    }
    for (const auto& dir : spec.dirs.relative) {
        require(canonical_relative(dir), "private directories are canonical relative paths");
    }
    require(spec.admission.queue_dir.empty() || canonical_relative(spec.admission.queue_dir),
            "the queue is a canonical relative path");
    for (const auto& dir : spec.checked_dirs) {
        require(dir.path.starts_with('/'), "checked directories are absolute");
    }
    const auto& protection = spec.protected_paths;
    require(protection.paths.size() <= kMaxProtectedPaths, "at most 64 protected paths");
    require(protection.paths.empty() == protection.base.empty(), "a protected base exactly when there are paths");
    require(protection.base.empty() || protection.base.starts_with('/'), "the protected base is absolute");
    for (std::size_t i = 0; i < protection.paths.size(); ++i) {
        const auto& path = protection.paths[i].relative;
        require(canonical_relative(path) && path.size() <= kMaxProtectedPathLength,
                "protected paths are canonical relative paths within the bound");
        for (std::size_t j = 0; j < i; ++j) {
            const auto& other = protection.paths[j].relative;
            require(!path.starts_with(other + "/") && !other.starts_with(path + "/") && path != other,
                    "no protected path is listed twice or lies beneath another");
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto wire = wire_from(std::string_view(reinterpret_cast<const char*>(data), size));
    try {
        check_accepted(wire, decode_launch_spec(wire));
    } catch (const Error& e) {
        require(e.kind() == ErrorKind::LaunchFailed, "a refusal is LaunchFailed");
    }
    return 0;
}
