// SPDX-License-Identifier: Apache-2.0
#pragma once
// The D-Bus match rules the helper and the CLI subscribe with. Each process
// adds one rule, whatever the number of sessions: the broker checks every
// signal against every rule of every connection, and a rule per session
// made each launch cost more the more sessions were running.

#include <string>
#include <string_view>

namespace nr::core {

// `key='value'` for a match rule. Throws InvalidArgument when the value
// holds a quote, a backslash or a comma: sd-bus reads a backslash inside
// quotes as an escape and the broker (as the D-Bus specification says) as
// a literal, so such a value would match different things on either side.
std::string match_component(std::string_view key, std::string_view value);

// Every change of a systemd unit's org.freedesktop.systemd1.Unit properties
// (ActiveState among them), for all units at once: the helper looks the unit
// up by the signal's object path. systemd sends these only to a connection
// that called Subscribe.
std::string unit_changes_match();

// NameOwnerChanged for a name that lost its owner (argument 2, the new
// owner, empty): how the helper learns that a worker left the bus, without
// waking for every connection that arrives.
std::string name_departures_match();

// NameOwnerChanged for the bus name `name` only (argument 0): how the CLI
// learns that the helper holding its session went away, without asking the
// bus on every tick. Throws InvalidArgument as match_component does.
std::string name_owner_changes_match(std::string_view name);

// The helper's SessionEnded and SessionWaiting signals about the session of
// `owner` and `chat`, and no other. Both carry owner and chat as arguments
// 1 and 2; the unit name (argument 0) is not used because its escapes
// (\x2d) hold backslashes. Throws InvalidArgument for an invalid id.
std::string session_signals_match(std::string_view owner, std::string_view chat);

} // namespace nr::core
