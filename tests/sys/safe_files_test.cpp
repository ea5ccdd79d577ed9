// SPDX-License-Identifier: Apache-2.0
// Reads and writes beneath an allowed root on a real filesystem: every
// planted link is refused, with both resolvers (openat2 and the O_NOFOLLOW
// walk), and each refusal has a twin that is accepted.

#include "sys/fs/safe_files.h"

#include "core/base/relative_path.h"
#include "temp_tree.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

using namespace nr;
using core::ErrorKind;
using sys::Resolver;
using ::testing::HasSubstr;

namespace {

constexpr std::uint64_t kLimit = 1 << 20;

std::string resolver_name(const ::testing::TestParamInfo<Resolver>& info)
{
    return info.param == Resolver::Openat2 ? "Openat2" : "Walk";
}

class WithEachResolver : public ::testing::TestWithParam<Resolver> {
protected:
    std::string read(const std::string& rel, std::uint64_t limit = kLimit)
    {
        const auto root = tree.open_root("root");
        return sys::read_file_beneath(root.get(), core::parse_relative_path(rel, "relpath"), limit, GetParam()).data;
    }
    struct stat write(const std::string& rel, const std::string& data, mode_t mode = 0640)
    {
        const auto root = tree.open_root("root");
        return sys::replace_file_beneath(root.get(), core::parse_relative_path(rel, "relpath"), data, mode, GetParam());
    }

    void remove(const std::string& rel, std::uint64_t device, std::uint64_t inode)
    {
        const auto root = tree.open_root("root");
        sys::remove_file_beneath(root.get(), core::parse_relative_path(rel, "relpath"), device, inode, GetParam());
    }
    struct stat lstat_of(const std::string& rel)
    {
        struct stat st {};
        EXPECT_EQ(::lstat(tree.at(rel).c_str(), &st), 0) << rel;
        return st;
    }

    void SetUp() override
    {
        tree.dir("root/sub");
        tree.file("root/sub/file.txt", "inside");
        tree.file("outside.txt", "outside-secret");
    }

    test::TempTree tree;
};

using ARead = WithEachResolver;
using AWrite = WithEachResolver;
using ARemoval = WithEachResolver;

} // namespace

TEST_P(ARead, OfARegularFileBeneathTheRootReturnsItsContent)
{
    EXPECT_EQ(read("sub/file.txt"), "inside");
}

TEST_P(ARead, ThroughASymlinkInPlaceOfTheFileIsRefused)
{
    tree.symlink("root/sub/link.txt", tree.at("outside.txt"));
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, read("sub/link.txt"));
    EXPECT_THAT(e->what(), HasSubstr("symlink"));
}

TEST_P(ARead, ThroughASymlinkToAFileInsideTheRootIsRefusedToo)
{
    tree.symlink("root/sub/inner-link.txt", "file.txt");
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, read("sub/inner-link.txt"));
}

TEST_P(ARead, ThroughASymlinkInPlaceOfAParentDirectoryIsRefused)
{
    tree.symlink("root/up", tree.path());
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, read("up/outside.txt"));
    tree.symlink("root/relative-up", "..");
    NR_EXPECT_REFUSED(f, ErrorKind::InvalidPath, read("relative-up/outside.txt"));
}

TEST_P(ARead, OfAHardLinkToAFileOutsideIsRefused)
{
    ASSERT_EQ(::link(tree.at("outside.txt").c_str(), tree.at("root/hard.txt").c_str()), 0);
    NR_EXPECT_REFUSED(e, ErrorKind::UnsafeFile, read("hard.txt"));
    EXPECT_THAT(e->what(), HasSubstr("2 hard links"));
    // Control: once the other link is gone the same file is read.
    ASSERT_EQ(::unlink(tree.at("outside.txt").c_str()), 0);
    EXPECT_EQ(read("hard.txt"), "outside-secret");
}

TEST_P(ARead, OfAFifoIsRefusedWithoutBlocking)
{
    ASSERT_EQ(::mkfifo(tree.at("root/fifo").c_str(), 0600), 0);
    NR_EXPECT_REFUSED(e, ErrorKind::UnsafeFile, read("fifo"));
    EXPECT_THAT(e->what(), HasSubstr("not a regular file"));
}

TEST_P(ARead, OfADirectoryIsRefused)
{
    NR_EXPECT_REFUSED(e, ErrorKind::UnsafeFile, read("sub"));
}

TEST_P(ARead, OfAMissingFileIsNoSuchFile)
{
    NR_EXPECT_REFUSED(e, ErrorKind::NoSuchFile, read("sub/none.txt"));
}

TEST_P(ARead, AtTheSizeLimitSucceedsAndOneByteOverIsRefused)
{
    tree.file("root/six", "123456");
    EXPECT_EQ(read("six", 6), "123456");
    NR_EXPECT_REFUSED(e, ErrorKind::FileTooLarge, read("six", 5));
}

TEST_P(ARead, OfTheProcMagicLinksIsRefused)
{
    const sys::UniqueFd proc(::open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(proc.valid());
    for (const auto* rel : {"root/etc/passwd", "cwd", "exe", "fd/0"}) {
        const auto names = core::parse_relative_path(rel, "relpath");
        NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, sys::read_file_beneath(proc.get(), names, kLimit, GetParam()));
    }
    // Control: a plain file in the same root opens (procfs reports size 0,
    // so it is opened rather than read).
    EXPECT_TRUE(sys::open_beneath(proc.get(), {"status"}, O_RDONLY, GetParam()).valid());
}

TEST_P(ARead, DoesNotCrossAMountInsideTheRoot)
{
    if (!test::running_as_root()) {
        GTEST_SKIP() << "mounting needs root";
    }
    tree.dir("root/mnt");
    // In a child with its own mount namespace, so nothing leaks to the host.
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        if (unshare(CLONE_NEWNS) != 0 || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
            mount("tmpfs", tree.at("root/mnt").c_str(), "tmpfs", 0, nullptr) != 0) {
            _exit(2);
        }
        std::FILE* f = std::fopen(tree.at("root/mnt/other-fs.txt").c_str(), "w");
        std::fputs("other", f);
        std::fclose(f);
        try {
            (void)read("mnt/other-fs.txt");
            _exit(0);
        } catch (const core::Error& e) {
            _exit(e.kind() == ErrorKind::InvalidPath ? 1 : 3);
        }
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 1) << "0: read across the mount, 2: setup failed, 3: wrong error kind";
}

namespace {

std::string g_appended_path;

void append_to_file(int /*fd*/)
{
    std::FILE* f = std::fopen(g_appended_path.c_str(), "a");
    std::fputs("more", f);
    std::fclose(f);
}

std::string g_swap_from;
std::string g_swap_to;

void rename_other_file_over(int /*fd*/)
{
    std::rename(g_swap_from.c_str(), g_swap_to.c_str());
}

} // namespace

TEST_P(ARead, OfAFileThatChangesBetweenOpenAndReadIsRefusedAsChanged)
{
    g_appended_path = tree.at("root/sub/file.txt");
    sys::set_between_open_and_read_hook(append_to_file);
    NR_EXPECT_REFUSED(e, ErrorKind::FileChanged, read("sub/file.txt"));
    sys::set_between_open_and_read_hook(nullptr);
    EXPECT_EQ(read("sub/file.txt"), "insidemore");
}

TEST_P(ARead, OfAFileSwappedForAnotherBetweenOpenAndReadIsRefusedAsChanged)
{
    // The opened inode loses its name (its link count drops), so what was
    // opened is no longer what the path names: neither content is returned.
    tree.file("root/sub/other.txt", "swapped-in");
    g_swap_from = tree.at("root/sub/other.txt");
    g_swap_to = tree.at("root/sub/file.txt");
    sys::set_between_open_and_read_hook(rename_other_file_over);
    NR_EXPECT_REFUSED(e, ErrorKind::FileChanged, read("sub/file.txt"));
    sys::set_between_open_and_read_hook(nullptr);
    EXPECT_EQ(read("sub/file.txt"), "swapped-in");
}

TEST_P(AWrite, ReplacesTheFileWithANewInodeAndTheGivenMode)
{
    struct stat before {};
    ASSERT_EQ(::stat(tree.at("root/sub/file.txt").c_str(), &before), 0);
    const auto st = write("sub/file.txt", "replaced", 0604);
    EXPECT_EQ(tree.read("root/sub/file.txt"), "replaced");
    EXPECT_NE(st.st_ino, before.st_ino);
    EXPECT_EQ(st.st_mode & 07777, 0604U);
    EXPECT_EQ(st.st_nlink, 1U);
}

TEST_P(AWrite, NeverTruncatesAnotherLinkOfTheOldFile)
{
    ASSERT_EQ(::link(tree.at("outside.txt").c_str(), tree.at("root/hard.txt").c_str()), 0);
    write("hard.txt", "new");
    EXPECT_EQ(tree.read("root/hard.txt"), "new");
    EXPECT_EQ(tree.read("outside.txt"), "outside-secret");
}

TEST_P(AWrite, CreatesAMissingFile)
{
    write("sub/new.txt", "fresh");
    EXPECT_EQ(tree.read("root/sub/new.txt"), "fresh");
}

TEST_P(AWrite, OverASymlinkIsRefusedAndItsTargetIsUntouched)
{
    tree.symlink("root/sub/link.txt", tree.at("outside.txt"));
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, write("sub/link.txt", "pwned"));
    EXPECT_EQ(tree.read("outside.txt"), "outside-secret");
    EXPECT_TRUE(std::filesystem::is_symlink(tree.at("root/sub/link.txt")));
}

TEST_P(AWrite, ThroughASymlinkedParentIsRefusedAndNothingIsWrittenThere)
{
    tree.symlink("root/up", tree.path());
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, write("up/planted.txt", "pwned"));
    EXPECT_FALSE(std::filesystem::exists(tree.at("planted.txt")));
}

TEST_P(AWrite, LeavesNoTemporaryFileBehind)
{
    write("sub/file.txt", "a");
    tree.dir("root/sub/dir-in-the-way");
    NR_EXPECT_REFUSED(e, ErrorKind::UnsafeFile, write("sub/dir-in-the-way", "b"));
    std::size_t entries = 0;
    for (const auto& entry : std::filesystem::directory_iterator(tree.at("root/sub"))) {
        EXPECT_EQ(entry.path().filename().string().find(".nr-write-"), std::string::npos) << entry.path();
        ++entries;
    }
    EXPECT_EQ(entries, 2U);
}

INSTANTIATE_TEST_SUITE_P(Resolvers, ARead, ::testing::Values(Resolver::Openat2, Resolver::Walk), resolver_name);
TEST_P(ARemoval, RemovesTheCheckedFile)
{
    const auto st = lstat_of("root/sub/file.txt");
    remove("sub/file.txt", st.st_dev, st.st_ino);
    EXPECT_FALSE(std::filesystem::exists(tree.at("root/sub/file.txt")));
}

TEST_P(ARemoval, OfAFileReplacedSinceTheCheckIsRefusedAndLeavesIt)
{
    const auto st = lstat_of("root/sub/file.txt");
    tree.file("root/sub/other.txt", "other");
    ASSERT_EQ(::rename(tree.at("root/sub/other.txt").c_str(), tree.at("root/sub/file.txt").c_str()), 0);
    NR_EXPECT_REFUSED(e, ErrorKind::FileChanged, remove("sub/file.txt", st.st_dev, st.st_ino));
    EXPECT_EQ(tree.read("root/sub/file.txt"), "other");
}

TEST_P(ARemoval, OfASymlinkOrADirectoryIsRefusedAndNothingOutsideIsRemoved)
{
    const auto outside = lstat_of("outside.txt");
    tree.symlink("root/sub/link.txt", tree.at("outside.txt"));
    NR_EXPECT_REFUSED(e, ErrorKind::FileChanged, remove("sub/link.txt", outside.st_dev, outside.st_ino));
    EXPECT_TRUE(std::filesystem::is_symlink(tree.at("root/sub/link.txt")));
    EXPECT_EQ(tree.read("outside.txt"), "outside-secret");
    const auto dir = lstat_of("root/sub");
    NR_EXPECT_REFUSED(d, ErrorKind::FileChanged, remove("sub", dir.st_dev, dir.st_ino));
    EXPECT_TRUE(std::filesystem::is_directory(tree.at("root/sub")));
}

TEST_P(ARemoval, ThroughASymlinkedParentIsRefused)
{
    const auto outside = lstat_of("outside.txt");
    tree.symlink("root/up", tree.path());
    NR_EXPECT_REFUSED(e, ErrorKind::InvalidPath, remove("up/outside.txt", outside.st_dev, outside.st_ino));
    EXPECT_EQ(tree.read("outside.txt"), "outside-secret");
}

TEST_P(ARemoval, OfAMissingFileIsNoSuchFile)
{
    NR_EXPECT_REFUSED(e, ErrorKind::NoSuchFile, remove("sub/none.txt", 1, 2));
}

INSTANTIATE_TEST_SUITE_P(Resolvers, ARemoval, ::testing::Values(Resolver::Openat2, Resolver::Walk), resolver_name);
INSTANTIATE_TEST_SUITE_P(Resolvers, AWrite, ::testing::Values(Resolver::Openat2, Resolver::Walk), resolver_name);

TEST(ThisKernel, HasOpenat2SoTheKernelEnforcesTheResolveFlags)
{
    EXPECT_TRUE(sys::kernel_has_openat2());
}
