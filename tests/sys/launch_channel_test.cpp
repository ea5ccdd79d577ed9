// SPDX-License-Identifier: Apache-2.0
// The helper channel (sys/base/launch_channel.h): what a launcher takes
// from it, and everything else it refuses.
#include "sys/base/launch_channel.h"

#include "core/launch/launch_spec_bytes.h"
#include "sys/base/sealed_memfd.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

using namespace nr::sys;
using nr::core::ErrorKind;
using ::testing::HasSubstr;

namespace {

constexpr auto kChannelWait = std::chrono::seconds(5);

nr::core::LaunchSpec channel_test_spec()
{
    nr::core::LaunchSpec spec;
    spec.bwrap_argv = {"/usr/bin/bwrap", "--", "/usr/bin/true"};
    spec.environment = {"HOME=/home/agent", "SECRET=s"};
    spec.dirs.base = "/var/lib/nr";
    spec.dirs.relative = {"native-runtime/alice/home"};
    return spec;
}

// One message of `byte` carrying `fds`, as a stranger to the protocol
// might send it.
void send_raw(int socket, char byte, const std::vector<int>& fds)
{
    iovec iov{&byte, 1};
    std::vector<char> control(CMSG_SPACE(sizeof(int) * fds.size()));
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (!fds.empty()) {
        msg.msg_control = control.data();
        msg.msg_controllen = control.size();
        cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
        cmsg->cmsg_level = SOL_SOCKET;
        cmsg->cmsg_type = SCM_RIGHTS;
        cmsg->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
        std::memcpy(CMSG_DATA(cmsg), fds.data(), sizeof(int) * fds.size());
    }
    ASSERT_EQ(sendmsg(socket, &msg, MSG_NOSIGNAL), 1) << std::strerror(errno);
}

UniqueFd sealed_spec_memfd()
{
    return sealed_memfd("nr-test-spec", nr::core::launch_spec_bytes(nr::core::encode_launch_spec(channel_test_spec())));
}

std::string refusal(int unit_end, std::chrono::milliseconds wait = kChannelWait)
{
    const auto e = nr::test::error_from([&] { (void)receive_launch_spec(unit_end, wait, geteuid()); });
    if (!e) {
        ADD_FAILURE() << "the launcher took what the channel carried";
        return {};
    }
    EXPECT_EQ(e->kind(), ErrorKind::LaunchFailed);
    return e->what();
}

} // namespace

TEST(AHelperChannel, CarriesTheSpecTheHelperSent)
{
    const auto channel = new_launch_channel();
    send_launch_spec(channel.helper_end.get(), channel_test_spec());
    const auto spec = receive_launch_spec(channel.unit_end.get(), kChannelWait, geteuid());
    EXPECT_EQ(spec.bwrap_argv, channel_test_spec().bwrap_argv);
    EXPECT_EQ(spec.environment, channel_test_spec().environment);
    EXPECT_EQ(spec.dirs.relative, channel_test_spec().dirs.relative);
}

TEST(AHelperChannelClosedWithoutASpec, IsReadAsTheLaunchWithdrawn)
{
    auto channel = new_launch_channel();
    channel.helper_end.reset();
    EXPECT_THAT(refusal(channel.unit_end.get()), HasSubstr("withdrew the launch"));
}

TEST(AHelperChannelThatStaysSilent, IsRefusedWhenTheWaitEnds)
{
    const auto channel = new_launch_channel();
    EXPECT_THAT(refusal(channel.unit_end.get(), std::chrono::milliseconds(50)), HasSubstr("no launch spec within"));
}

TEST(AHelperChannelMessage, WithoutADescriptorIsRefused)
{
    const auto channel = new_launch_channel();
    send_raw(channel.helper_end.get(), 'S', {});
    EXPECT_THAT(refusal(channel.unit_end.get()), HasSubstr("0 descriptors, not one"));
}

TEST(AHelperChannelMessage, WithTwoDescriptorsIsRefused)
{
    const auto channel = new_launch_channel();
    const auto first = sealed_spec_memfd();
    const auto second = sealed_spec_memfd();
    send_raw(channel.helper_end.get(), 'S', {first.get(), second.get()});
    EXPECT_THAT(refusal(channel.unit_end.get()), HasSubstr("2 descriptors, not one"));
}

TEST(AHelperChannelMessage, OfAnotherKindIsRefused)
{
    const auto channel = new_launch_channel();
    const auto memfd = sealed_spec_memfd();
    send_raw(channel.helper_end.get(), 'X', {memfd.get()});
    EXPECT_THAT(refusal(channel.unit_end.get()), HasSubstr("not a launch spec"));
}

TEST(AHelperChannelMessage, CarryingAPipeIsRefused)
{
    const auto channel = new_launch_channel();
    std::array<int, 2> pipe_fds{};
    ASSERT_EQ(pipe(pipe_fds.data()), 0);
    const UniqueFd reading(pipe_fds[0]);
    const UniqueFd writing(pipe_fds[1]);
    send_raw(channel.helper_end.get(), 'S', {reading.get()});
    EXPECT_THAT(refusal(channel.unit_end.get()), HasSubstr("not a sealable memfd"));
}

TEST(AHelperChannelMessage, CarryingAMemfdThatCanStillChangeIsRefused)
{
    const auto channel = new_launch_channel();
    const auto memfd = new_sealable_memfd("nr-test-unsealed");
    const auto bytes = nr::core::launch_spec_bytes(nr::core::encode_launch_spec(channel_test_spec()));
    ASSERT_EQ(write(memfd.get(), bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    send_raw(channel.helper_end.get(), 'S', {memfd.get()});
    EXPECT_THAT(refusal(channel.unit_end.get()), HasSubstr("not sealed"));
}

TEST(AHelperChannelMessage, CarryingAMemfdOfAnotherUidIsRefused)
{
    const auto channel = new_launch_channel();
    const auto memfd = sealed_spec_memfd();
    send_raw(channel.helper_end.get(), 'S', {memfd.get()});
    const auto e =
        nr::test::error_from([&] { (void)receive_launch_spec(channel.unit_end.get(), kChannelWait, geteuid() + 1); });
    ASSERT_TRUE(e.has_value());
    EXPECT_THAT(e->what(), HasSubstr("owned by uid " + std::to_string(geteuid())));
}

TEST(AHelperChannelMessage, CarryingSealedBytesThatAreNoSpecIsRefused)
{
    const auto channel = new_launch_channel();
    const auto memfd = sealed_memfd("nr-test-spec", "bwrap --bind / /");
    send_raw(channel.helper_end.get(), 'S', {memfd.get()});
    EXPECT_THAT(refusal(channel.unit_end.get()), HasSubstr("wrong magic"));
}

TEST(AHelperChannelMessage, CarryingASpecTheLauncherCouldNotApplyIsRefused)
{
    const auto channel = new_launch_channel();
    auto spec = channel_test_spec();
    spec.bwrap_argv = {"bwrap"};
    send_launch_spec(channel.helper_end.get(), spec);
    EXPECT_THAT(refusal(channel.unit_end.get()), HasSubstr("bwrap_argv"));
}

TEST(AWaitReportOverAHelperChannel, ReachesTheHelperWithItsCount)
{
    const auto channel = new_launch_channel();
    EXPECT_FALSE(next_launcher_message(channel.helper_end.get()).has_value());
    ASSERT_TRUE(report_waiting(channel.unit_end.get(), 70000));
    auto message = next_launcher_message(channel.helper_end.get());
    ASSERT_TRUE(message.has_value());
    EXPECT_EQ(message->kind, LauncherMessage::Kind::Waiting);
    EXPECT_EQ(message->ahead, 70000U);
    EXPECT_FALSE(next_launcher_message(channel.helper_end.get()).has_value());
}

TEST(AListenerOverAHelperChannel, ReachesTheHelperAndTheHandOverEndsWithItsAnswer)
{
    const auto channel = new_launch_channel();
    std::array<int, 2> pair{};
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair.data()), 0);
    const UniqueFd listener(pair[0]);
    const UniqueFd other(pair[1]);
    // The helper's answer, queued before the hand-over asks for it.
    acknowledge_listener(channel.helper_end.get());
    hand_over_listener(channel.unit_end.get(), listener.get(), kChannelWait);
    auto message = next_launcher_message(channel.helper_end.get());
    ASSERT_TRUE(message.has_value());
    ASSERT_EQ(message->kind, LauncherMessage::Kind::Listener);
    struct stat got {};
    struct stat sent {};
    ASSERT_EQ(fstat(message->listener.get(), &got), 0);
    ASSERT_EQ(fstat(listener.get(), &sent), 0);
    EXPECT_EQ(got.st_ino, sent.st_ino);
}

TEST(AListenerOverAHelperChannel, IsRefusedWhenTheHelperClosesTheChannelInsteadOfAnswering)
{
    auto channel = new_launch_channel();
    channel.helper_end.reset();
    std::array<int, 2> pair{};
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair.data()), 0);
    const UniqueFd listener(pair[0]);
    const UniqueFd other(pair[1]);
    const auto e =
        nr::test::error_from([&] { hand_over_listener(channel.unit_end.get(), listener.get(), kChannelWait); });
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->kind(), ErrorKind::LaunchFailed);
}

TEST(ALauncherMessage, OfAnyOtherShapeIsInvalid)
{
    const auto channel = new_launch_channel();
    const auto memfd = sealed_spec_memfd();
    send_raw(channel.unit_end.get(), 'W', {});            // no count
    send_raw(channel.unit_end.get(), 'L', {});            // no listener
    send_raw(channel.unit_end.get(), 'S', {memfd.get()}); // the helper's own kind
    for (int i = 0; i < 3; ++i) {
        auto message = next_launcher_message(channel.helper_end.get());
        ASSERT_TRUE(message.has_value()) << i;
        EXPECT_EQ(message->kind, LauncherMessage::Kind::Invalid) << i;
    }
}

TEST(AHelperChannelWhoseLauncherClosedIt, IsReadAsClosed)
{
    auto channel = new_launch_channel();
    channel.unit_end.reset();
    auto message = next_launcher_message(channel.helper_end.get());
    ASSERT_TRUE(message.has_value());
    EXPECT_EQ(message->kind, LauncherMessage::Kind::Closed);
}

TEST(ALauncherDoneWithItsChannel, SaysSoSoThatTheHelperClosesItsEnd)
{
    const auto channel = new_launch_channel();
    ASSERT_TRUE(report_done(channel.unit_end.get()));
    auto message = next_launcher_message(channel.helper_end.get());
    ASSERT_TRUE(message.has_value());
    EXPECT_EQ(message->kind, LauncherMessage::Kind::Done);
}

TEST(AListenerOverAHelperChannel, WhoseAnswerNeverComesIsRefusedNamingTheAnswer)
{
    const auto channel = new_launch_channel();
    std::array<int, 2> pair{};
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair.data()), 0);
    const UniqueFd listener(pair[0]);
    const UniqueFd other(pair[1]);
    const auto e = nr::test::error_from(
        [&] { hand_over_listener(channel.unit_end.get(), listener.get(), std::chrono::milliseconds(50)); });
    ASSERT_TRUE(e.has_value());
    EXPECT_THAT(e->what(), HasSubstr("no answer to the gateway listener within"));
}
