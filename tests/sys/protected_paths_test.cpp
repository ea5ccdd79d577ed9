// SPDX-License-Identifier: Apache-2.0
// The launcher's walk to each protected home path on a real filesystem:
// what is missing is created, what is there is kept, and every planted
// symlink, wrong kind, foreign owner or extra hard link is refused.

#include "sys/fs/protected_paths.h"

#include "temp_tree.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

using namespace nr;
using core::ErrorKind;
using ::testing::HasSubstr;

namespace {

using nr::test::kNobody;

class AProtectedHome : public ::testing::Test {
protected:
    void SetUp() override
    {
        // The session user must be able to reach its home, as under
        // data_dir in production; the tree's root is 0700 from mkdtemp.
        ASSERT_EQ(::chmod(tree.path().c_str(), 0755), 0);
        tree.dir("home", 0700);
    }

    [[nodiscard]] std::string home() const { return tree.at("home"); }

    [[nodiscard]] core::ProtectedPaths protection(const std::vector<std::string>& entries) const
    {
        core::ProtectedPaths out{home(), {}};
        for (const auto& entry : entries) {
            out.paths.push_back(core::parse_protected_path(entry));
        }
        return out;
    }

    std::vector<sys::ProtectedMount> open(const std::vector<std::string>& entries) const
    {
        return sys::open_protected_paths(protection(entries));
    }

    [[nodiscard]] struct stat lstat_of(const std::string& rel) const
    {
        struct stat st {};
        EXPECT_EQ(::lstat(tree.at(rel).c_str(), &st), 0) << rel;
        return st;
    }

    test::TempTree tree;
};

struct stat stat_of(int fd)
{
    struct stat st {};
    EXPECT_EQ(::fstat(fd, &st), 0);
    return st;
}

// Runs `step` in a child with nobody's uid and gid (as the launcher runs as
// the session user) and returns the message it threw, "" when none.
std::string as_nobody(const std::function<void()>& step)
{
    std::array<int, 2> pipe_fds{};
    if (::pipe2(pipe_fds.data(), O_CLOEXEC) != 0) {
        return "pipe failed";
    }
    const sys::UniqueFd read_end(pipe_fds[0]);
    sys::UniqueFd write_end(pipe_fds[1]);
    const pid_t child = ::fork();
    if (child == 0) {
        std::string message;
        if (::setresgid(kNobody, kNobody, kNobody) != 0 || ::setresuid(kNobody, kNobody, kNobody) != 0) {
            message = "cannot become nobody";
        } else {
            try {
                step();
            } catch (const std::exception& e) {
                message = e.what();
            }
        }
        const auto written = ::write(write_end.get(), message.data(), message.size());
        ::_exit(written == static_cast<ssize_t>(message.size()) ? 0 : 1);
    }
    write_end.reset();
    std::string message;
    std::array<char, 512> buffer{};
    for (ssize_t n = 0; (n = ::read(read_end.get(), buffer.data(), buffer.size())) > 0;) {
        message.append(buffer.data(), static_cast<std::size_t>(n));
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return message;
}

} // namespace

TEST_F(AProtectedHome, GetsAMissingFileCreatedEmptyAs0600OfTheSessionUserWithItsParents0700)
{
    if (!test::running_as_root()) {
        GTEST_SKIP() << "running the walk as another user needs root";
    }
    ASSERT_EQ(::chown(home().c_str(), kNobody, kNobody), 0);
    const auto paths = protection({".config/gh/hosts.yml"});
    EXPECT_EQ(as_nobody([&] { (void)sys::open_protected_paths(paths); }), "");
    for (const auto* dir : {"home/.config", "home/.config/gh"}) {
        const auto st = lstat_of(dir);
        EXPECT_TRUE(S_ISDIR(st.st_mode)) << dir;
        EXPECT_EQ(st.st_mode & 07777, 0700U) << dir;
        EXPECT_EQ(st.st_uid, kNobody) << dir;
    }
    const auto st = lstat_of("home/.config/gh/hosts.yml");
    EXPECT_TRUE(S_ISREG(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0600U);
    EXPECT_EQ(st.st_uid, kNobody);
    EXPECT_EQ(st.st_size, 0);
}

TEST_F(AProtectedHome, GetsAMissingDirectoryCreatedEmptyAs0700)
{
    const auto mounts = open({".claude/hooks/"});
    const auto st = lstat_of("home/.claude/hooks");
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0700U);
    EXPECT_EQ(st.st_uid, ::geteuid());
    EXPECT_TRUE(std::filesystem::is_empty(tree.at("home/.claude/hooks")));
}

TEST_F(AProtectedHome, KeepsAnExistingFileWithItsContentAndHandsOutThatFile)
{
    tree.dir("home/.claude", 0700);
    tree.file("home/.claude/settings.json", "{\"hooks\": {}}", 0644);
    const auto before = lstat_of("home/.claude/settings.json");
    const auto mounts = open({".claude/settings.json"});
    EXPECT_EQ(tree.read("home/.claude/settings.json"), "{\"hooks\": {}}");
    EXPECT_EQ(lstat_of("home/.claude/settings.json").st_mode & 07777, 0644U);
    ASSERT_EQ(mounts.size(), 2U);
    EXPECT_EQ(mounts[1].path, home() + "/.claude/settings.json");
    EXPECT_TRUE(mounts[1].read_only);
    EXPECT_EQ(stat_of(mounts[1].fd.get()).st_ino, before.st_ino);
}

TEST_F(AProtectedHome, HandsOutTheDirectoriesOnTheWayFirstAndWritable)
{
    const auto mounts = open({".config/gh/hosts.yml", ".bashrc", ".claude/hooks/"});
    std::vector<std::string> paths;
    for (const auto& mount : mounts) {
        paths.push_back(mount.path.substr(home().size()) + (mount.read_only ? " ro" : " rw"));
        EXPECT_EQ(stat_of(mount.fd.get()).st_ino, lstat_of(mount.path.substr(tree.path().size() + 1)).st_ino);
    }
    EXPECT_THAT(paths, ::testing::ElementsAre("/.claude rw", "/.config rw", "/.config/gh rw",
                                              "/.config/gh/hosts.yml ro", "/.bashrc ro", "/.claude/hooks ro"));
}

TEST_F(AProtectedHome, RefusesASymlinkedFileAndCreatesNothingThroughIt)
{
    tree.dir("home/.claude", 0700);
    tree.file("elsewhere", "evil hooks");
    tree.symlink("home/.claude/settings.json", tree.at("elsewhere"));
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, open({".claude/settings.json"}));
    EXPECT_THAT(e->what(), HasSubstr(home() + "/.claude/settings.json is a symlink"));

    tree.symlink("home/.bashrc", tree.at("missing-target"));
    NR_EXPECT_REFUSED(dangling, ErrorKind::InvalidPath, open({".bashrc"}));
    EXPECT_FALSE(std::filesystem::exists(tree.at("missing-target")));
}

TEST_F(AProtectedHome, RefusesASymlinkedDirectoryOnTheWayAndCreatesNothingThroughIt)
{
    tree.dir("outside", 0700);
    tree.symlink("home/.claude", tree.at("outside"));
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, open({".claude/settings.json"}));
    EXPECT_THAT(e->what(), HasSubstr(home() + "/.claude is a symlink or not a directory"));
    EXPECT_TRUE(std::filesystem::is_empty(tree.at("outside")));
}

TEST_F(AProtectedHome, RefusesASymlinkedProtectedDirectory)
{
    tree.dir("outside", 0700);
    tree.symlink("home/.codex", tree.at("outside"));
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, open({".codex/"}));
    EXPECT_THAT(e->what(), HasSubstr("is a symlink"));
}

TEST_F(AProtectedHome, RefusesAHomeReachedThroughASymlink)
{
    tree.symlink("linked-home", home());
    auto paths = protection({".bashrc"});
    paths.base = tree.at("linked-home");
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, sys::open_protected_paths(paths));
}

TEST_F(AProtectedHome, RefusesThePathWhenItIsNotTheDeclaredKind)
{
    tree.dir("home/.bashrc", 0700);
    NR_EXPECT_REFUSED(dir_for_file, ErrorKind::InvalidPath, open({".bashrc"}));
    EXPECT_THAT(dir_for_file->what(), HasSubstr("is not a regular file"));

    tree.file("home/.codex", "a file");
    NR_EXPECT_REFUSED(file_for_dir, ErrorKind::InvalidPath, open({".codex/"}));
    EXPECT_THAT(file_for_dir->what(), HasSubstr("is not a directory"));

    ASSERT_EQ(::mkfifo(tree.at("home/.profile").c_str(), 0600), 0);
    NR_EXPECT_REFUSED(fifo, ErrorKind::InvalidPath, open({".profile"}));
    EXPECT_THAT(fifo->what(), HasSubstr("is not a regular file"));
}

TEST_F(AProtectedHome, RefusesAFileInPlaceOfADirectoryOnTheWay)
{
    tree.file("home/.claude", "not a directory");
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, open({".claude/settings.json"}));
    EXPECT_THAT(e->what(), HasSubstr("is a symlink or not a directory"));
}

TEST_F(AProtectedHome, RefusesAPathOrADirectoryOnTheWayOwnedBySomeoneElse)
{
    if (!test::running_as_root()) {
        GTEST_SKIP() << "giving a file to another user needs root";
    }
    tree.file("home/.bashrc", "alias ls=evil");
    ASSERT_EQ(::chown(tree.at("home/.bashrc").c_str(), kNobody, kNobody), 0);
    NR_EXPECT_REFUSED(file, ErrorKind::InvalidPath, open({".bashrc"}));
    EXPECT_THAT(file->what(), HasSubstr(home() + "/.bashrc is owned by uid 65534, not the session user"));

    tree.dir("home/.claude", 0700);
    ASSERT_EQ(::chown(tree.at("home/.claude").c_str(), kNobody, kNobody), 0);
    NR_EXPECT_REFUSED(parent, ErrorKind::InvalidPath, open({".claude/settings.json"}));
    EXPECT_THAT(parent->what(), HasSubstr(home() + "/.claude is owned by uid 65534"));
}

TEST_F(AProtectedHome, RefusesAFileWithASecondHardLink)
{
    tree.file("home/.bashrc", "alias ls=ls");
    ASSERT_EQ(::link(tree.at("home/.bashrc").c_str(), tree.at("home/writable-twin").c_str()), 0);
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, open({".bashrc"}));
    EXPECT_THAT(e->what(), HasSubstr("has 2 hard links"));
}

TEST_F(AProtectedHome, OpensNothingWhenNothingIsProtected)
{
    EXPECT_TRUE(sys::open_protected_paths({}).empty());
}

TEST_F(AProtectedHome, HandsEachDescriptorToItsMountKindAndForbidsMountsByNameBeneathTheHome)
{
    const auto paths = protection({".claude/settings.json", ".codex/"});
    const auto mounts = sys::open_protected_paths(paths);
    core::MountDescriptors descriptors;
    descriptors.read_write["/srv/workspace"] = 3; // a checked directory's, kept
    sys::add_protected_descriptors(paths, mounts, descriptors);
    EXPECT_EQ(descriptors.read_write,
              (std::map<std::string, int>{{"/srv/workspace", 3}, {home() + "/.claude", mounts[0].fd.get()}}));
    EXPECT_EQ(descriptors.read_only,
              (std::map<std::string, int>{{home() + "/.claude/settings.json", mounts[1].fd.get()},
                                          {home() + "/.codex", mounts[2].fd.get()}}));
    EXPECT_EQ(descriptors.descriptors_only_beneath, home());
}
