// SPDX-License-Identifier: Apache-2.0
#pragma once
// The helper's per-boot memory of a passed preflight canary: a record of
// the inputs the canary depended on (core::canary_cache_record), kept in
// the helper's root-only state directory. A missing, different or
// untrustworthy record means "run the canary", never "assume it passed".

#include "core/ops/preflight.h"

#include <string>
#include <vector>

namespace nr::sys {

// In the helper unit's StateDirectory= (root, 0700).
inline constexpr const char* kCanaryCacheDir = "/var/lib/native-runtime";
inline constexpr const char* kCanaryCacheName = "preflight-canary";

// Boot id, kernel, systemd version, the SHA-256 of `config_path`, the
// identity of each of `binaries` and the user-namespace sysctls, as seen now.
core::CanaryInputs observe_canary_inputs(const std::string& config_path, const std::vector<std::string>& binaries,
                                         const std::string& systemd_version);

// The stored record; "" when there is none or it cannot be trusted: the
// directory and the file must be root's, not writable by group or others,
// and neither may be a symlink.
std::string read_canary_cache(const std::string& dir = kCanaryCacheDir);

// Replaces the record atomically (a 0600 temporary file renamed over it).
// False when it could not be written, which only costs the next helper
// activation another canary.
bool write_canary_cache(const std::string& record, const std::string& dir = kCanaryCacheDir);

// Forgets a pass (after a failed canary); absent is fine.
void remove_canary_cache(const std::string& dir = kCanaryCacheDir);

} // namespace nr::sys
