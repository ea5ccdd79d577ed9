// SPDX-License-Identifier: Apache-2.0
#pragma once
// The session a verb works on, named as systemctl and machinectl name
// units and machines: positionally (OWNER/CHAT or the session's unit name)
// or with --owner/--chat as before. Each function adds the flags and the
// positional to a verb and, once that verb's words are parsed, writes the
// resolved ids into the flags' variables (core/cli/session_address.h
// decides); a malformed or disagreeing name is a usage error (64).

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace nr::ctl {

// [OWNER/CHAT] or --owner O --chat C: one session.
void add_session(CLI::App& cmd, std::string& owner, std::string& chat);

// [OWNER[/CHAT]] or --owner O [--chat C]: an owner's sessions, or one.
void add_owner_sessions(CLI::App& cmd, std::string& owner, std::string& chat);

// [OWNER/CHAT] ARG: one session, then the verb's own required argument
// (file read's RELPATH): with two words the first names the session.
void add_session_and_argument(CLI::App& cmd, std::string& owner, std::string& chat, std::string& argument,
                              const std::string& argument_help);

// `run`: [OWNER/CHAT] [--] COMMAND... Without both --owner and --chat, the
// first word of the command line's positional part names the session.
void add_run_session(CLI::App& cmd, std::string& owner, std::string& chat, std::vector<std::string>& command);

} // namespace nr::ctl
