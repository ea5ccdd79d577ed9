// SPDX-License-Identifier: Apache-2.0
#include "core/base/relative_path.h"

#include "core/base/error.h"

namespace nr::core {

namespace {

bool is_control(char c)
{
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
}

} // namespace

std::vector<std::string> parse_relative_path(std::string_view path, std::string_view what)
{
    const std::string field(what);
    if (path.empty()) {
        fail(ErrorKind::InvalidPath, field + " is empty");
    }
    if (path.size() > kMaxRelativePathLength) {
        fail(ErrorKind::InvalidPath, field + " is longer than 4095 bytes");
    }
    // Checked over the whole text first, so a NUL can never truncate what a
    // later C API sees, and messages below never echo control characters.
    for (const char c : path) {
        if (is_control(c)) {
            fail(ErrorKind::InvalidPath, field + " contains NUL or another control character");
        }
    }
    if (path.front() == '/') {
        fail(ErrorKind::InvalidPath, field + " must be relative, not absolute: " + std::string(path));
    }
    std::vector<std::string> components;
    std::size_t start = 0;
    while (start <= path.size()) {
        const auto slash = path.find('/', start);
        const auto end = slash == std::string_view::npos ? path.size() : slash;
        const auto name = path.substr(start, end - start);
        if (name.empty()) {
            fail(ErrorKind::InvalidPath, field + " has an empty component: " + std::string(path));
        }
        if (name == "." || name == "..") {
            fail(ErrorKind::InvalidPath, field + " has a '.' or '..' component: " + std::string(path));
        }
        if (name.size() > kMaxNameLength) {
            fail(ErrorKind::InvalidPath, field + " has a component longer than 255 bytes");
        }
        components.emplace_back(name);
        if (slash == std::string_view::npos) {
            break;
        }
        start = slash + 1;
    }
    return components;
}

std::string join_components(const std::vector<std::string>& components)
{
    std::string out;
    for (const auto& name : components) {
        if (!out.empty()) {
            out += '/';
        }
        out += name;
    }
    return out;
}

} // namespace nr::core
