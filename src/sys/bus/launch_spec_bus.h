// SPDX-License-Identifier: Apache-2.0
#pragma once
// Launcher.Claim's out arguments as sdbus-c++ types, and the only mapping
// between them and the named core::LaunchSpecWire. The helper's adaptor
// returns to_claim_reply(encode_launch_spec(spec)); the launcher decodes
// from_claim_reply(reply), so both sides share one field order.

#include <sdbus-c++/sdbus-c++.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "core/launch/launch_spec.h"

namespace nr::sys {

// a(sia(utt)): (name, errno, [(argument index, mask, value)]).
using ArgumentMatchBus = sdbus::Struct<std::uint32_t, std::uint64_t, std::uint64_t>;
using SyscallRuleBus = sdbus::Struct<std::string, std::int32_t, std::vector<ArgumentMatchBus>>;
// a(stt): (path, device, inode).
using CheckedDirBus = sdbus::Struct<std::string, std::uint64_t, std::uint64_t>;

// a(sb): (relative path, is a directory).
using ProtectedPathBus = sdbus::Struct<std::string, bool>;

// (bwrap_argv, environment, denied_syscalls, kill_foreign_abis, dirs_base,
//  private_dirs, admission_queue, checked_dirs, gateway_port,
//  protected_base, protected_paths): what the generated adaptor returns and
// the generated proxy gives back.
using ClaimReply = std::tuple<std::vector<std::string>, std::vector<std::string>, std::vector<SyscallRuleBus>, bool,
                              std::string, std::vector<std::string>, std::string, std::vector<CheckedDirBus>,
                              std::uint16_t, std::string, std::vector<ProtectedPathBus>>;

// The reply object of the helper's asynchronous Claim handler.
template <typename Tuple> struct ResultFor;
template <typename... Fields> struct ResultFor<std::tuple<Fields...>> {
    using type = sdbus::Result<Fields...>;
};
using ClaimResult = ResultFor<ClaimReply>::type;

ClaimReply to_claim_reply(const core::LaunchSpecWire& wire);
void return_claim(ClaimResult& result, const ClaimReply& reply);
core::LaunchSpecWire from_claim_reply(const ClaimReply& reply);

} // namespace nr::sys
