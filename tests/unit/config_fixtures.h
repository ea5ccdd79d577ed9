// SPDX-License-Identifier: Apache-2.0
#pragma once
// The configurations the core unit tests start from, kept in one place: the
// smallest YAML file parse_config accepts, and a Config value with two
// adapters for the decisions made from a parsed config.

#include "core/config/config.h"

#include <string>
#include <string_view>

namespace nr::test {

// The source name the config tests expect at the start of every message.
inline constexpr std::string_view kConfigSource = "cfg.yaml";

// Seven lines; the last one is inside adapters.<adapter>, so text appended
// with four spaces of indentation lands in that profile at line 8, and text
// appended without indentation lands at the top level at line 8.
inline std::string minimal_config(std::string_view adapter = "claude", std::string_view executable = "/usr/bin/claude")
{
    std::string yaml = "data_dir: /var/lib/nr\n"                 // 1
                       "callers: {}\n"                           // 2
                       "sandbox:\n"                              // 3
                       "  read_only_paths: [/usr]\n"             // 4
                       "adapters:\n";                            // 5
    yaml += "  " + std::string(adapter) + ":\n";                 // 6
    yaml += "    executable: " + std::string(executable) + "\n"; // 7
    return yaml;
}

// parse_config with kConfigSource as the file name.
inline nr::core::Config parse(const std::string& yaml)
{
    return nr::core::parse_config(yaml, kConfigSource);
}

// claude (/usr/bin/claude, host network, ANTHROPIC_API_KEY) and codex
// (/opt/codex/bin/codex, no credentials) under data_dir /var/lib/nr, with
// PATH /usr/bin:/bin and no grants: each test adds what it is about.
inline nr::core::Config two_adapter_config()
{
    nr::core::Config c;
    c.source = std::string(kConfigSource);
    c.data_dir = "/var/lib/nr";
    c.default_path = "/usr/bin:/bin";
    nr::core::AdapterProfile claude;
    claude.name = "claude";
    claude.executable = "/usr/bin/claude";
    claude.credential_env = {"ANTHROPIC_API_KEY"};
    nr::core::AdapterProfile codex;
    codex.name = "codex";
    codex.executable = "/opt/codex/bin/codex";
    c.adapters = {{"claude", claude}, {"codex", codex}};
    return c;
}

// The smallest config the loader accepts, parsed by many tests as a base.
inline const std::string kMinimal = minimal_config();

} // namespace nr::test
