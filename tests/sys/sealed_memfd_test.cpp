// SPDX-License-Identifier: Apache-2.0
#include "sys/base/sealed_memfd.h"

#include "temp_tree.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <string>

using namespace nr::sys;
using nr::core::ErrorKind;
using ::testing::HasSubstr;

namespace {

constexpr std::size_t kSealedSpecLimit = 1024;

UniqueFd memfd_not_sealed(const std::string& data)
{
    auto fd = new_sealable_memfd("nr-test-unsealed");
    EXPECT_EQ(write(fd.get(), data.data(), data.size()), static_cast<ssize_t>(data.size()));
    return fd;
}

} // namespace

TEST(ASealedMemfdOfItsOwner, IsReadWhole)
{
    const auto fd = sealed_memfd("nr-test-spec", "the launch spec");
    EXPECT_EQ(read_sealed_memfd(fd.get(), geteuid(), kSealedSpecLimit, "the spec"), "the launch spec");
}

TEST(ASealedMemfdOfItsOwner, IsReadWholeWhateverItsSharedOffset)
{
    const auto fd = sealed_memfd("nr-test-spec", "the launch spec");
    ASSERT_EQ(lseek(fd.get(), 0, SEEK_END), 15);
    EXPECT_EQ(read_sealed_memfd(fd.get(), geteuid(), kSealedSpecLimit, "the spec"), "the launch spec");
}

TEST(AMemfdThatCanStillChange, IsRefused)
{
    const auto unsealed = memfd_not_sealed("spec");
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed,
                      read_sealed_memfd(unsealed.get(), geteuid(), kSealedSpecLimit, "the spec"));
    EXPECT_THAT(e->what(), HasSubstr("not sealed"));

    const auto writable = memfd_not_sealed("spec");
    ASSERT_EQ(fcntl(writable.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), 0);
    NR_EXPECT_REFUSED(w, ErrorKind::LaunchFailed,
                      read_sealed_memfd(writable.get(), geteuid(), kSealedSpecLimit, "the spec"));
    EXPECT_THAT(w->what(), HasSubstr("not sealed"));
}

TEST(ASealedMemfdOfAnotherOwner, IsRefused)
{
    const auto fd = sealed_memfd("nr-test-spec", "spec");
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed,
                      read_sealed_memfd(fd.get(), geteuid() + 1, kSealedSpecLimit, "the spec"));
    EXPECT_THAT(e->what(), HasSubstr("owned by uid " + std::to_string(geteuid())));
}

TEST(ASealedMemfdOverTheLimit, IsRefusedBeforeItIsRead)
{
    const auto fd = sealed_memfd("nr-test-spec", std::string(kSealedSpecLimit + 1, 's'));
    NR_EXPECT_REFUSED(e, ErrorKind::LaunchFailed, read_sealed_memfd(fd.get(), geteuid(), kSealedSpecLimit, "the spec"));
    EXPECT_THAT(e->what(), HasSubstr("1025 bytes, over 1024"));
}

TEST(ADescriptorThatIsNoMemfd, IsRefused)
{
    int pipe_fds[2] = {-1, -1};
    ASSERT_EQ(pipe(pipe_fds), 0);
    const UniqueFd reading(pipe_fds[0]);
    const UniqueFd writing(pipe_fds[1]);
    NR_EXPECT_REFUSED(pipe_refused, ErrorKind::LaunchFailed,
                      read_sealed_memfd(reading.get(), geteuid(), kSealedSpecLimit, "the spec"));
    EXPECT_THAT(pipe_refused->what(), HasSubstr("not a sealable memfd"));

    const nr::test::TempTree tree;
    const UniqueFd file(open(tree.at("spec").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    ASSERT_TRUE(file.valid());
    const auto e =
        nr::test::error_from([&] { (void)read_sealed_memfd(file.get(), geteuid(), kSealedSpecLimit, "the spec"); });
    ASSERT_TRUE(e.has_value()) << "a file on disk was read as a sealed memfd";
    EXPECT_EQ(e->kind(), ErrorKind::LaunchFailed);
}
