// SPDX-License-Identifier: Apache-2.0
#include "core/base/path_policy.h"

#include "core/base/error.h"

namespace nr::core {

namespace {

constexpr std::size_t kMaxPathLength = 4096;

} // namespace

void validate_absolute_path(std::string_view path, std::string_view what)
{
    const std::string field(what);
    if (path.empty() || path.front() != '/') {
        fail(ErrorKind::InvalidPath, field + " must be an absolute path");
    }
    if (path.size() > kMaxPathLength) {
        fail(ErrorKind::InvalidPath, field + " is longer than 4096 bytes");
    }
    for (const char c : path) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            fail(ErrorKind::InvalidPath, field + " contains a control character");
        }
    }
    if (path == "/") {
        return;
    }
    if (path.back() == '/') {
        fail(ErrorKind::InvalidPath, field + " must not end with '/': " + std::string(path));
    }
    std::size_t start = 1;
    while (start <= path.size()) {
        const auto end = std::min(path.find('/', start), path.size());
        const auto component = path.substr(start, end - start);
        if (component.empty() || component == "." || component == "..") {
            fail(ErrorKind::InvalidPath,
                 field + " must be canonical (no empty, '.' or '..' components): " + std::string(path));
        }
        start = end + 1;
    }
}

bool path_is_within(std::string_view inner, std::string_view outer)
{
    if (outer == "/") {
        return !inner.empty() && inner.front() == '/';
    }
    if (!inner.starts_with(outer)) {
        return false;
    }
    return inner.size() == outer.size() || inner[outer.size()] == '/';
}

bool paths_overlap(std::string_view a, std::string_view b)
{
    return path_is_within(a, b) || path_is_within(b, a);
}

std::vector<std::string> path_components(std::string_view path)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < path.size()) {
        const auto end = std::min(path.find('/', start), path.size());
        if (end > start) {
            out.emplace_back(path.substr(start, end - start));
        }
        start = end + 1;
    }
    return out;
}

std::string join_path(std::string_view base, std::string_view relative)
{
    std::string out(base);
    if (out.empty() || out.back() != '/') {
        out += '/';
    }
    out += relative;
    return out;
}

} // namespace nr::core
