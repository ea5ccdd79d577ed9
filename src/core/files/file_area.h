// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which allowed root a worker-named relative path is resolved beneath: the
// chat's default workspace or the owner's home, both inside the owner's
// tree under data_dir. No other root exists for file operations, so the
// worker can never name a directory of its own choosing.

#include <string>
#include <string_view>

#include "core/config/config.h"

namespace nr::core {

enum class FileArea { Workspace, Home };

// "workspace" or "home"; anything else is InvalidArgument.
FileArea parse_file_area(std::string_view name);

// <data_dir>/native-runtime/<owner>/chats/<chat>/workspace, or
// <data_dir>/native-runtime/<owner>/home. Validates owner and chat first.
std::string file_area_path(const Config& config, std::string_view owner, std::string_view chat, FileArea area);

} // namespace nr::core
