// SPDX-License-Identifier: Apache-2.0
#pragma once
// The journal read back as an operator reads it (`journalctl -o json`),
// parsed, for the tests that check what the helper recorded about a session.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace nr::itest {

// The fixed ids of src/core/journal/log_event.cpp (also in the installed catalog).
inline constexpr const char* kSessionStarted = "f67162d8350c4eb5af45a7cba697bbd4";
inline constexpr const char* kSessionEnded = "f1dc0c07edd447878916d8f850eb8023";
inline constexpr const char* kSessionRefused = "a8a2a6471bf648038cea7d70cd793637";
inline constexpr const char* kFileOperationRefused = "afa1e46430fd47f388b24ca800e1eea1";
inline constexpr const char* kSyscallsDenied = "234cbe6e50ab4976a731607b50444900";
inline constexpr const char* kPolkitChecked = "35a2d9c85a3b46f58ffafa2b28ceb085";

// One parsed object per line of journalctl's or `logs`' JSON output.
std::vector<nlohmann::json> json_lines(const std::string& text);

// Every record matching journalctl's `matches` (FIELD=value, ...).
std::vector<nlohmann::json> journal(const std::vector<std::string>& matches);

// Waits up to 20 s for a record matching `matches`; the last one (an empty
// object, and a test failure, when none came).
nlohmann::json last_record(const std::vector<std::string>& matches);

// A string field of a record; empty when absent or not a string.
std::string field(const nlohmann::json& record, const char* name);

} // namespace nr::itest
