// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>

namespace nr::version {

// The project version from CMake (the Debian package's upstream version).
std::string_view project();

// The commit the binary was built from, empty when built outside git.
std::string_view commit();

// What `--version` prints and the helper logs at start:
// "PROGRAM VERSION" or "PROGRAM VERSION (git COMMIT)".
std::string describe(std::string_view program);

} // namespace nr::version
