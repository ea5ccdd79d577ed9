// SPDX-License-Identifier: Apache-2.0
#pragma once
// Files of the late drop-in on disk: read, write atomically, remove. The
// content and the decisions come from core/ops/dropin.h; failures throw
// std::system_error naming the path.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace nr::sys {

// The file's text, or nullopt when it does not exist.
std::optional<std::string> read_text_file(const std::string& path);

enum class WriteOutcome { Created, Updated, Unchanged };

// Writes <dir>/<name> so that a crash leaves either the old or the new file:
// a hidden temp file in the same directory (systemd skips dot files),
// fsync, rename, fsync of the directory. `render(created_directory)` gives
// the content; `dir` is created (0755, parents too) when missing.
WriteOutcome write_file_atomically(const std::string& dir, std::string_view name,
                                   const std::function<std::string(bool created_directory)>& render);

// Removes <dir>/<name>, and `dir` too when `remove_directory` and it is then
// empty. False when the file did not exist.
bool remove_file_durably(const std::string& dir, std::string_view name, bool remove_directory);

} // namespace nr::sys
