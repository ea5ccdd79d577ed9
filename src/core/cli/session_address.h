// SPDX-License-Identifier: Apache-2.0
#pragma once
// How an operator names a session on native-runtimectl's command line, the
// way systemctl and machinectl take a unit or machine name positionally:
// OWNER/CHAT, or the session's unit name (native-runtime-OWNER-CHAT.service)
// copied from `systemctl` or `list`. The --owner/--chat flags stay; this
// decides what the positional means and whether it agrees with them.

#include <optional>
#include <string>
#include <string_view>

namespace nr::core {

struct SessionAddress {
    std::string owner;
    std::string chat; // empty: no chat named (an owner-wide verb)

    bool operator==(const SessionAddress&) const = default;
};

// OWNER/CHAT (exactly one slash, both parts valid ids) or a session's unit
// name. Throws Error(InvalidArgument) that names what is wrong.
SessionAddress parse_session_address(std::string_view text);

// For verbs about an owner's sessions (logs): OWNER, OWNER/CHAT or a
// session's unit name. A text that is a session's unit name is read as one,
// never as an owner id of that spelling (--owner still takes such an id).
SessionAddress parse_owner_address(std::string_view text);

// The ids a verb works on, from the positional (if any) and the flags: a
// flag that names another owner or chat than the positional is an error,
// and so is a missing owner, or a missing chat when `chat_required`.
SessionAddress resolve_session_address(const std::optional<SessionAddress>& positional, const SessionAddress& flags,
                                       bool chat_required);

} // namespace nr::core
