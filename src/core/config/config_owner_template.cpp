// SPDX-License-Identifier: Apache-2.0
#include "core/config/config.h"

#include "core/base/error.h"
#include "core/base/ids.h"
#include "core/base/path_policy.h"
#include "core/config/config_sections.h"

#include <charconv>
#include <limits>
#include <stdexcept>

// The public helpers of core/config/config.h: owner path templates and byte sizes.
namespace nr::core {

using config_sections::kOwnerPlaceholder;

std::string expand_owner_template(const std::string& path_template, const std::string& owner)
{
    auto path = path_template;
    const auto at = path.find(kOwnerPlaceholder);
    if (at != std::string::npos) {
        path.replace(at, kOwnerPlaceholder.size(), owner);
    }
    return path;
}

bool owner_template_overlaps(const std::string& path_template, const std::string& path)
{
    const auto at = path_template.find(kOwnerPlaceholder);
    if (at == std::string::npos) {
        return paths_overlap(path_template, path);
    }
    // The components before the one holding {owner} are the same for every
    // owner; the owner can only vary that one component.
    const auto start = path_template.rfind('/', at);
    const auto end = path_template.find('/', at);
    const std::string parent = start == 0 ? "/" : path_template.substr(0, start);
    if (path_is_within(parent, path)) {
        return true; // every owner's directory lies within `path`
    }
    if (!path_is_within(path, parent)) {
        return false;
    }
    const auto rest = std::string_view(path).substr(parent == "/" ? 1 : parent.size() + 1);
    const auto component = rest.substr(0, rest.find('/'));
    const auto prefix = std::string_view(path_template).substr(start + 1, at - start - 1);
    const auto after = at + kOwnerPlaceholder.size();
    const auto suffix =
        std::string_view(path_template).substr(after, end == std::string::npos ? std::string::npos : end - after);
    if (component.size() <= prefix.size() + suffix.size() || !component.starts_with(prefix) ||
        !component.ends_with(suffix)) {
        return false;
    }
    const std::string owner(component.substr(prefix.size(), component.size() - prefix.size() - suffix.size()));
    try {
        validate_id(IdKind::Owner, owner);
    } catch (const Error&) {
        return false; // no owner's directory is named like that
    }
    return paths_overlap(expand_owner_template(path_template, owner), path);
}

std::uint64_t parse_byte_size(std::string_view text)
{
    if (text.empty()) {
        throw std::invalid_argument("empty size");
    }
    std::uint64_t multiplier = 1;
    switch (text.back()) {
    case 'K': multiplier = 1ULL << 10U; break;
    case 'M': multiplier = 1ULL << 20U; break;
    case 'G': multiplier = 1ULL << 30U; break;
    case 'T': multiplier = 1ULL << 40U; break;
    default: break;
    }
    if (multiplier != 1) {
        text.remove_suffix(1);
    }
    std::uint64_t value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end ||
        value > std::numeric_limits<std::uint64_t>::max() / multiplier) {
        throw std::invalid_argument("bad size");
    }
    return value * multiplier;
}

} // namespace nr::core
