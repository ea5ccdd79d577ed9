// SPDX-License-Identifier: Apache-2.0
#include "sys/host/config_file.h"

#include "core/base/error.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace nr::sys {

std::string config_path()
{
    const char* overridden = std::getenv("NATIVE_RUNTIME_CONFIG");
    return overridden != nullptr && *overridden != '\0' ? overridden : std::string(core::kDefaultConfigPath);
}

core::Config load_config(const std::string& path)
{
    std::ifstream in(path);
    if (!in) {
        core::fail(core::ErrorKind::ConfigInvalid, path + ": cannot be read");
    }
    std::stringstream text;
    text << in.rdbuf();
    return core::parse_config(text.str(), path);
}

} // namespace nr::sys
