// SPDX-License-Identifier: Apache-2.0
#include "core/files/file_area.h"

#include "core/base/error.h"
#include "core/base/ids.h"
#include "core/plan/session_plan.h"

namespace nr::core {

FileArea parse_file_area(std::string_view name)
{
    if (name == "workspace") {
        return FileArea::Workspace;
    }
    if (name == "home") {
        return FileArea::Home;
    }
    fail(ErrorKind::InvalidArgument, "file area must be workspace or home, not " + std::string(name));
}

std::string file_area_path(const Config& config, std::string_view owner, std::string_view chat, FileArea area)
{
    validate_id(IdKind::Owner, owner);
    validate_id(IdKind::Chat, chat);
    const auto root = owner_root(config, std::string(owner));
    // The same directories plan_session gives a session by default.
    if (area == FileArea::Home) {
        return root + "/home";
    }
    return root + "/chats/" + std::string(chat) + "/workspace";
}

} // namespace nr::core
