// SPDX-License-Identifier: Apache-2.0
#include "core/launch/protected_paths.h"

#include "core/base/error.h"
#include "core/base/path_policy.h"
#include "core/base/relative_path.h"

#include <algorithm>
#include <set>

namespace nr::core {

namespace {

constexpr std::string_view kWhat = "protected home path";

void require_canonical(const std::string& relative)
{
    if (relative.size() > kMaxProtectedPathLength) {
        fail(ErrorKind::InvalidPath,
             std::string(kWhat) + " is longer than " + std::to_string(kMaxProtectedPathLength) + " bytes");
    }
    // parse_relative_path refuses every form that could leave the home or
    // name it; joining its components back must give the text unchanged.
    if (join_components(parse_relative_path(relative, kWhat)) != relative) {
        fail(ErrorKind::InvalidPath, std::string(kWhat) + " " + relative + " is not canonical");
    }
}

} // namespace

ProtectedPath parse_protected_path(std::string_view entry)
{
    // Checked before the trailing '/' goes, so that "/" reads as absolute.
    if (entry.starts_with('/')) {
        fail(ErrorKind::InvalidPath, std::string(kWhat) + " must be relative to the home, not absolute");
    }
    ProtectedPath path;
    path.directory = entry.ends_with('/');
    if (path.directory) {
        entry.remove_suffix(1);
    }
    path.relative = std::string(entry);
    require_canonical(path.relative);
    return path;
}

std::string protected_path_text(const ProtectedPath& path)
{
    return path.directory ? path.relative + "/" : path.relative;
}

void check_protected_paths(const std::vector<ProtectedPath>& paths)
{
    if (paths.size() > kMaxProtectedPaths) {
        fail(ErrorKind::InvalidPath, "more than " + std::to_string(kMaxProtectedPaths) + " protected home paths");
    }
    for (const auto& path : paths) {
        require_canonical(path.relative);
    }
    for (std::size_t i = 0; i < paths.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            const auto& earlier = paths[j].relative;
            const auto& later = paths[i].relative;
            if (earlier == later) {
                fail(ErrorKind::InvalidPath, std::string(kWhat) + " " + later + " is listed twice");
            }
            if (path_is_within(later, earlier) || path_is_within(earlier, later)) {
                fail(ErrorKind::InvalidPath, std::string(kWhat) + " " + protected_path_text(paths[i]) + " and " +
                                                 protected_path_text(paths[j]) +
                                                 " overlap: one lies beneath the other");
            }
        }
    }
    const auto mounts = paths.size() + protected_ancestors(paths).size();
    if (mounts > kMaxProtectedMounts) {
        fail(ErrorKind::InvalidPath, "protected home paths and the directories on the way to them are " +
                                         std::to_string(mounts) + " mounts, more than " +
                                         std::to_string(kMaxProtectedMounts));
    }
}

std::vector<ProtectedPath> merge_protected_paths(const std::vector<std::vector<ProtectedPath>>& lists)
{
    std::vector<ProtectedPath> all;
    for (const auto& list : lists) {
        all.insert(all.end(), list.begin(), list.end());
    }
    // A directory sorts before everything beneath it, so one pass keeps
    // the outermost of each nest.
    std::stable_sort(all.begin(), all.end(),
                     [](const ProtectedPath& a, const ProtectedPath& b) { return a.relative < b.relative; });
    std::vector<ProtectedPath> merged;
    for (const auto& path : all) {
        require_canonical(path.relative);
        if (!merged.empty() && merged.back().relative == path.relative) {
            if (merged.back().directory != path.directory) {
                fail(ErrorKind::InvalidPath, std::string(kWhat) + " " + path.relative +
                                                 " is a file for one adapter and a directory for another");
            }
            continue;
        }
        const auto covered = std::any_of(merged.begin(), merged.end(), [&path](const ProtectedPath& kept) {
            return kept.directory && path_is_within(path.relative, kept.relative);
        });
        if (!covered) {
            merged.push_back(path);
        }
    }
    check_protected_paths(merged);
    return merged;
}

std::vector<std::string> protected_ancestors(const std::vector<ProtectedPath>& paths)
{
    // Lexicographic order puts a directory before everything beneath it.
    std::set<std::string> ancestors;
    for (const auto& path : paths) {
        for (auto slash = path.relative.find('/'); slash != std::string::npos;
             slash = path.relative.find('/', slash + 1)) {
            ancestors.insert(path.relative.substr(0, slash));
        }
    }
    return {ancestors.begin(), ancestors.end()};
}

} // namespace nr::core
