// SPDX-License-Identifier: Apache-2.0
#include "core/plan/unit_filesystem.h"

#include "core/base/path_policy.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace nr::core {

namespace {

// What ProtectHome= hides and PrivateTmp= replaces.
constexpr std::array<std::string_view, 3> kHomes{"/home", "/root", "/run/user"};
constexpr std::array<std::string_view, 2> kTemporary{"/tmp", "/var/tmp"};

template <std::size_t N>
bool any_overlaps(const std::vector<std::string>& paths, const std::array<std::string_view, N>& places)
{
    return std::any_of(paths.begin(), paths.end(), [&](const std::string& path) {
        return std::any_of(places.begin(), places.end(),
                           [&](std::string_view place) { return paths_overlap(path, place); });
    });
}

} // namespace

UnitProperties unit_filesystem_properties(const UnitFilesystemNeeds& needs)
{
    std::vector<std::string> writable{"-" + needs.data_dir};
    for (const auto& path : needs.read_write) {
        if (!path_is_within(path, needs.data_dir)) {
            writable.push_back("-" + path);
        }
    }
    auto needed = needs.read_only;
    needed.insert(needed.end(), needs.read_write.begin(), needs.read_write.end());
    needed.push_back(needs.data_dir);

    UnitProperties properties{
        {"ProtectSystem", std::string("strict")},
        {"ReadWritePaths", writable},
        {"PrivateMounts", true},
        {"ProtectHome", std::string(any_overlaps(needed, kHomes) ? "read-only" : "yes")},
    };
    if (!any_overlaps(needed, kTemporary)) {
        properties.push_back({"PrivateTmp", true});
    }
    return properties;
}

} // namespace nr::core
