// SPDX-License-Identifier: Apache-2.0
#pragma once
// Paths in an owner's home that a session may read but not change: the
// places where one chat's tool could plant code that the owner's later
// sessions run (hook settings, notify commands, shell start-up files). The
// home itself is shared read-write by all of the owner's sessions; each
// protected path is mounted read-only over it, and every directory between
// the home and a protected path is bound onto itself, so that a session can
// neither rename a parent away nor put a new file in its place (a mount
// point cannot be renamed or removed in the namespace that holds it).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace nr::core {

struct ProtectedPath {
    std::string relative; // canonical relative path, without a trailing '/'
    bool directory = false;

    bool operator==(const ProtectedPath&) const = default;
};

// The protected paths of one session, relative to `base` (the owner's
// home). Both are empty when the adapter protects nothing.
struct ProtectedPaths {
    std::string base;
    std::vector<ProtectedPath> paths;

    bool operator==(const ProtectedPaths&) const = default;
};

// Each protected path is a mount and a descriptor the launcher holds until
// bwrap starts; the bounds keep a config from asking for thousands.
inline constexpr std::size_t kMaxProtectedPaths = 64;
inline constexpr std::size_t kMaxProtectedPathLength = 1024;
// The paths and the directories on the way to them, together: each is a
// mount, and deep paths could otherwise ask for thousands.
inline constexpr std::size_t kMaxProtectedMounts = 128;

// ".claude/settings.json" -> a file; ".claude/hooks/" -> a directory (the
// one trailing '/' says so). Refused with Error(InvalidPath): longer than
// kMaxProtectedPathLength bytes; what core::parse_relative_path refuses
// (empty, absolute, an empty, "." or ".." component, a control character
// such as NUL or newline) once the trailing '/' is removed, so "/", "./"
// and "" (the home itself) are refused too.
ProtectedPath parse_protected_path(std::string_view entry);

// The config's form of `path`: its relative path, with a trailing '/' for
// a directory.
std::string protected_path_text(const ProtectedPath& path);

// The rules across a list: at most kMaxProtectedPaths entries, each a
// canonical relative path of at most kMaxProtectedPathLength bytes, none
// equal to or beneath another (a path beneath a protected directory is
// protected already; a path beneath a protected file cannot exist), and at
// most kMaxProtectedMounts paths and directories on the way together.
// Refused with Error(InvalidPath) naming the entries.
void check_protected_paths(const std::vector<ProtectedPath>& paths);

// What every session of an owner gets protected: the union of every
// adapter's list. The home is shared by all of the owner's sessions, of any
// adapter, so a path one client reads as code must be read-only in the
// sessions of all the others too (a session without it could write it, or
// rename a directory above it while another session runs). An entry beneath
// a protected directory is covered by it and dropped; the same path listed
// as a file by one adapter and a directory by another is refused, and so is
// a union beyond the bounds of check_protected_paths (Error(InvalidPath)).
// Sorted by path.
std::vector<ProtectedPath> merge_protected_paths(const std::vector<std::vector<ProtectedPath>>& lists);

// The directories strictly between the base and each protected path, each
// once and every parent before its children: ".claude/settings.json" and
// ".config/gh/hosts.yml" give ".claude", ".config", ".config/gh".
std::vector<std::string> protected_ancestors(const std::vector<ProtectedPath>& paths);

} // namespace nr::core
