// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the relative-path parser that guards every file the
// helper opens for the worker.
//
// Checked: parse_relative_path agrees with an independent restatement of
// the rule; it refuses only with InvalidPath naming the field; an accepted
// path is its own canonical form (its names joined give the input back),
// no name can step out ('.', '..', '/', empty) or hide a NUL/control
// character, and the path appended to any root stays beneath that root as a
// canonical absolute path.

#include "core/base/error.h"
#include "core/base/path_policy.h"
#include "core/base/relative_path.h"
#include "fuzz_support.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

using namespace nr::core;
using nr::fuzz::require;

constexpr std::string_view kField = "relpath";
constexpr std::string_view kRoot = "/srv/owner/workspace";

bool reference_is_valid(std::string_view path)
{
    if (path.empty() || path.size() > 4095 || path.front() == '/') {
        return false;
    }
    std::string name;
    auto name_ok = [](const std::string& n) { return !n.empty() && n != "." && n != ".." && n.size() <= 255; };
    for (const char c : path) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            return false;
        }
        if (c == '/') {
            if (!name_ok(name)) {
                return false;
            }
            name.clear();
        } else {
            name += c;
        }
    }
    return name_ok(name);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view path(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> names;
    bool accepted = true;
    try {
        names = parse_relative_path(path, kField);
    } catch (const Error& e) {
        require(e.kind() == ErrorKind::InvalidPath, "a refusal is InvalidPath");
        require(std::string_view(e.what()).starts_with(kField), "a refusal names the field");
        accepted = false;
    }
    require(accepted == reference_is_valid(path), "the parser matches the documented rule");
    if (!accepted) {
        return 0;
    }
    require(!names.empty(), "an accepted path has at least one name");
    for (const auto& name : names) {
        require(!name.empty() && name != "." && name != "..", "no name steps out");
        require(name.find('/') == std::string::npos, "no name holds a slash");
        for (const char c : name) {
            require(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f, "no control characters");
        }
    }
    require(join_components(names) == path, "an accepted path is its own canonical form");
    const auto full = join_path(kRoot, path);
    try {
        validate_absolute_path(full, "joined");
    } catch (const Error&) {
        require(full.size() > 4096, "root + path is canonical unless only too long");
    }
    require(path_is_within(full, kRoot) && full != kRoot, "root + path lies strictly beneath the root");
    return 0;
}
