// SPDX-License-Identifier: Apache-2.0
#include "version/version.h"

#include "version/version_data.h"

namespace nr::version {

std::string_view project()
{
    return kProjectVersion;
}

std::string_view commit()
{
    return kGitCommit;
}

std::string describe(std::string_view program)
{
    std::string text(program);
    text += ' ';
    text += project();
    if (!commit().empty()) {
        text += " (git ";
        text += commit();
        text += ')';
    }
    return text;
}

} // namespace nr::version
