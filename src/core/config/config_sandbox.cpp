// SPDX-License-Identifier: Apache-2.0
#include "core/config/config_sections.h"

#include "core/base/app_unit_name.h"

#include <cstdint>

// The top-level sections every session's sandbox is built from: who may
// call, the application's units, the sandbox, the limits and the file
// operations.
namespace nr::core::config_sections {

namespace {

constexpr std::uint64_t kMaxTasks = 1U << 22U;
constexpr std::uint64_t kMaxSeconds = 365ULL * 24 * 3600;

} // namespace

std::vector<std::string> read_app_units(const ConfigReader& r, const Node& node, const Key& key)
{
    auto units = r.string_list(node, key);
    for (std::size_t i = 0; i < units.size(); ++i) {
        try {
            validate_app_unit_name(units[i]);
        } catch (const Error& e) {
            r.error_at(node[i], key, e.what());
        }
    }
    return units;
}

CallerPolicy read_callers(const ConfigReader& r, const Node& node, const Key& key)
{
    CallerPolicy callers;
    r.for_each_key(node, key,
                   {
                       {"users", r.assign(callers.users, &ConfigReader::string_list)},
                       {"groups", r.assign(callers.groups, &ConfigReader::string_list)},
                       {"run_as_users", r.assign(callers.run_as_users, &ConfigReader::string_list)},
                   });
    return callers;
}

void read_sandbox(const ConfigReader& r, const Node& node, const Key& key, Config& config)
{
    r.for_each_key(node, key,
                   {
                       {"read_only_paths", r.assign(config.read_only_paths, &ConfigReader::path_list)},
                       {"hidden_paths", r.assign(config.hidden_paths, &ConfigReader::path_list)},
                       {"mcp_token_env", r.assign(config.mcp_token_env, &ConfigReader::scalar)},
                       {"forbidden_env", r.assign(config.forbidden_env, &ConfigReader::string_list)},
                       {"proxy_env", r.assign(config.proxy_env, &ConfigReader::boolean)},
                       {"allowed_addresses", r.assign(config.allowed_addresses, &ConfigReader::address_list)},
                   });
}

void read_limits(const ConfigReader& r, const Node& node, const Key& key, SessionLimits& limits)
{
    r.for_each_key(node, key,
                   {
                       {"memory_max", r.assign(limits.memory_max_bytes, &ConfigReader::byte_size)},
                       {"tasks_max", r.assign(limits.tasks_max, kMaxTasks)},
                       {"cpu_quota_percent", r.assign(limits.cpu_quota_percent, 100000)},
                       {"runtime_max_sec", r.assign(limits.runtime_max_sec, kMaxSeconds)},
                       {"tmp_size", r.assign(limits.tmp_size_bytes, &ConfigReader::byte_size)},
                   });
    if (limits.memory_max_bytes == 0 || limits.tasks_max == 0 || limits.cpu_quota_percent == 0 ||
        limits.runtime_max_sec == 0 || limits.tmp_size_bytes == 0) {
        r.error_at(node, key, "limits must be greater than zero");
    }
}

OwnerLimits read_owner_limits(const ConfigReader& r, const Node& node, const Key& key)
{
    OwnerLimits limits;
    r.for_each_key(node, key,
                   {
                       {"memory_max", r.assign(limits.memory_max_bytes, &ConfigReader::byte_size)},
                       {"tasks_max", r.assign(limits.tasks_max, kMaxTasks)},
                   });
    if (limits.memory_max_bytes == 0U || limits.tasks_max == 0U) {
        r.error_at(node, key, "limits must be greater than zero");
    }
    return limits;
}

FileOperations read_files(const ConfigReader& r, const Node& node, const Key& key)
{
    FileOperations files;
    r.for_each_key(node, key,
                   {
                       {"max_size",
                        [&](const Node& n, const Key& k) {
                            files.max_bytes = r.byte_size(n, k);
                            if (files.max_bytes == 0) {
                                r.error_at(n, k, "must be greater than zero");
                            }
                        }},
                       {"receipt_key", r.assign(files.receipt_key, &ConfigReader::absolute_path)},
                       {"receipt_ttl_sec",
                        [&](const Node& n, const Key& k) {
                            files.receipt_ttl_sec = r.unsigned_number(n, k, kMaxSeconds);
                            if (files.receipt_ttl_sec == 0) {
                                r.error_at(n, k, "must be greater than zero");
                            }
                        }},
                   });
    return files;
}

} // namespace nr::core::config_sections
