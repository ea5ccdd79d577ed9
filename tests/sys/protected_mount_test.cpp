// SPDX-License-Identifier: Apache-2.0
// Protected home paths in a real bwrap sandbox: the launcher's walk
// (sys/fs/protected_paths.h) and its mounts (core::bind_from_descriptors),
// with bwrap's --ro-bind-fd and --bind-fd over the home's writable bind.
// Each refusal inside has its positive control: a write beside the
// protected file succeeds, and without the protection the same write does.
// Skipped where bwrap cannot make a sandbox (no user namespaces).

#include "core/launch/sandbox_args.h"
#include "sys/base/sealed_memfd.h"
#include "sys/fs/protected_paths.h"
#include "sys/host/host_facts.h"

#include "temp_tree.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <string>
#include <vector>

using namespace nr;
using ::testing::HasSubstr;

namespace {

using Argv = std::vector<std::string>;

constexpr const char* kBwrap = "/usr/bin/bwrap";

// Each step prints "<name>: ok" or "<name>: <its error>".
constexpr const char* kScript = R"(
step() { name=$1; shift; if out=$("$@" 2>&1); then echo "$name: ok"; else echo "$name: $out"; fi; }
step write-protected-file sh -c 'echo evil > "$H/.claude/settings.json"'
step write-sibling sh -c 'echo note > "$H/.claude/notes"'
step add-to-protected-dir sh -c 'echo x > "$H/.codex/planted"'
step rename-parent mv "$H/.claude" "$H/.claude-old"
step replace-protected-file mv "$H/.claude/notes" "$H/.claude/settings.json"
)";

struct Outcome {
    int status = -1;
    std::string output;
};

// Runs argv with stdout and stderr captured and `keep` open across exec.
Outcome run(const Argv& argv, const std::vector<int>& keep = {})
{
    std::array<int, 2> pipe_fds{};
    if (::pipe2(pipe_fds.data(), O_CLOEXEC) != 0) {
        return {};
    }
    const sys::UniqueFd read_end(pipe_fds[0]);
    sys::UniqueFd write_end(pipe_fds[1]);
    const pid_t child = ::fork();
    if (child == 0) {
        ::dup2(write_end.get(), STDOUT_FILENO);
        ::dup2(write_end.get(), STDERR_FILENO);
        try {
            for (const int fd : keep) {
                sys::keep_across_exec(fd, "test descriptor");
            }
        } catch (const std::exception&) {
            ::_exit(126);
        }
        std::vector<char*> c_argv;
        for (const auto& arg : argv) {
            c_argv.push_back(
                const_cast<char*>(arg.c_str())); // NOLINT(cppcoreguidelines-pro-type-const-cast): execv ABI
        }
        c_argv.push_back(nullptr);
        ::execv(c_argv.front(), c_argv.data());
        ::_exit(127);
    }
    write_end.reset();
    Outcome outcome;
    std::array<char, 4096> buffer{};
    for (ssize_t n = 0; (n = ::read(read_end.get(), buffer.data(), buffer.size())) > 0;) {
        outcome.output.append(buffer.data(), static_cast<std::size_t>(n));
    }
    ::waitpid(child, &outcome.status, 0);
    return outcome;
}

// Everything but the home: /usr and the host's root symlinks, so that
// /bin/sh and mv run.
Argv sandbox_prefix()
{
    Argv argv{kBwrap, "--unshare-all", "--unshare-user", "--die-with-parent", "--cap-drop", "ALL", "--ro-bind",
              "/usr", "/usr"};
    for (const auto& link : sys::observe_root_symlinks()) {
        argv.insert(argv.end(), {"--symlink", link.target, link.path});
    }
    argv.insert(argv.end(), {"--proc", "/proc", "--dev", "/dev"});
    return argv;
}

bool bwrap_makes_sandboxes()
{
    if (!std::filesystem::exists(kBwrap)) {
        return false;
    }
    auto argv = sandbox_prefix();
    argv.insert(argv.end(), {"--", "/bin/true"});
    return run(argv).status == 0;
}

class AProtectedPathInASandbox : public ::testing::Test {
protected:
    void SetUp() override
    {
        // Not a skip: a skip would hide a broken bwrap from CI. A chroot,
        // which cannot make a user namespace, leaves this suite out by name
        // (scripts/build-trixie).
        ASSERT_TRUE(bwrap_makes_sandboxes()) << "bwrap cannot make a sandbox here";
        tree.dir("home/.claude", 0700);
        tree.file("home/.claude/settings.json", "{\"hooks\": {}}", 0600);
        tree.dir("home/.codex", 0700);
        tree.file("home/.codex/config.toml", "model = \"x\"", 0600);
    }

    [[nodiscard]] std::string home() const { return tree.at("home"); }

    // The plan's mounts as core::bwrap_argv orders them: the home, then
    // the directory on the way bound onto itself, then the protected paths
    // read-only; with `protect` false only the home.
    [[nodiscard]] Argv planned(bool protect) const
    {
        auto argv = sandbox_prefix();
        argv.insert(argv.end(), {"--bind", home(), home()});
        if (protect) {
            const auto claude = home() + "/.claude";
            const auto settings = claude + "/settings.json";
            const auto codex = home() + "/.codex";
            argv.insert(argv.end(),
                        {"--bind", claude, claude, "--ro-bind", settings, settings, "--ro-bind", codex, codex});
        }
        argv.insert(argv.end(), {"--setenv", "H", home(), "--", "/bin/sh", "-c", kScript});
        return argv;
    }

    // What the launcher does: walk, then swap the planned mounts for
    // descriptor mounts.
    Outcome run_protected()
    {
        core::ProtectedPaths protection{home(), {{".claude/settings.json", false}, {".codex", true}}};
        const auto mounts = sys::open_protected_paths(protection);
        core::MountDescriptors descriptors;
        sys::add_protected_descriptors(protection, mounts, descriptors);
        std::vector<int> keep;
        for (const auto& mount : mounts) {
            keep.push_back(mount.fd.get());
        }
        return run(core::bind_from_descriptors(planned(true), descriptors), keep);
    }

    test::TempTree tree;
};

} // namespace

TEST_F(AProtectedPathInASandbox, CannotBeWrittenWhileTheFileBesideItCan)
{
    const auto outcome = run_protected();
    ASSERT_EQ(outcome.status, 0) << outcome.output;
    EXPECT_THAT(outcome.output, HasSubstr("write-protected-file: "));
    EXPECT_THAT(outcome.output, HasSubstr("settings.json: Read-only file system"));
    EXPECT_THAT(outcome.output, HasSubstr("write-sibling: ok"));
    EXPECT_EQ(tree.read("home/.claude/settings.json"), "{\"hooks\": {}}");
    EXPECT_EQ(tree.read("home/.claude/notes"), "note\n");
}

TEST_F(AProtectedPathInASandbox, ThatIsADirectoryTakesNoNewFile)
{
    const auto outcome = run_protected();
    EXPECT_THAT(outcome.output, HasSubstr("planted: Read-only file system"));
    EXPECT_FALSE(std::filesystem::exists(tree.at("home/.codex/planted")));
}

TEST_F(AProtectedPathInASandbox, KeepsItsParentFromBeingRenamedAwayAndItselfFromBeingReplaced)
{
    const auto outcome = run_protected();
    EXPECT_THAT(outcome.output, ::testing::ContainsRegex("rename-parent: .*Device or resource busy"));
    EXPECT_THAT(outcome.output, ::testing::ContainsRegex("replace-protected-file: .*Device or resource busy"));
    EXPECT_TRUE(std::filesystem::is_directory(tree.at("home/.claude")));
    EXPECT_FALSE(std::filesystem::exists(tree.at("home/.claude-old")));
    EXPECT_EQ(tree.read("home/.claude/settings.json"), "{\"hooks\": {}}");
}

// The control for the three above: the same steps in the same home with
// no protection change everything they try to.
TEST_F(AProtectedPathInASandbox, IsWritableRenamableAndReplaceableWithoutTheProtection)
{
    const auto outcome = run(planned(false));
    ASSERT_EQ(outcome.status, 0) << outcome.output;
    EXPECT_THAT(outcome.output, HasSubstr("write-protected-file: ok"));
    EXPECT_THAT(outcome.output, HasSubstr("add-to-protected-dir: ok"));
    EXPECT_THAT(outcome.output, HasSubstr("rename-parent: ok"));
    EXPECT_TRUE(std::filesystem::exists(tree.at("home/.claude-old/settings.json")));
}
