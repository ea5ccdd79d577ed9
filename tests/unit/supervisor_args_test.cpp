// SPDX-License-Identifier: Apache-2.0
#include "core/launch/supervisor_args.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

using namespace nr::core;

namespace {

SupervisorArgs a_session()
{
    SupervisorArgs args;
    args.child_pid = 4242;
    args.listener_fd = 5;
    args.turn = HeldTurnFds{3, 4, 17};
    args.calls = {{50, "listen", EPERM}, {43, "accept", EPERM}, {425, "io_uring_setup", ENOSYS}};
    return args;
}

using Words = std::vector<std::string>;

// The words of a valid session with one of them replaced.
Words with(std::size_t index, const std::string& word)
{
    auto words = encode_supervisor_args(a_session());
    words.at(index) = word;
    return words;
}

} // namespace

TEST(TheSupervisorsArguments, ReadBackExactlyAsTheLauncherWroteThem)
{
    const auto args = a_session();
    const auto words = encode_supervisor_args(args);
    EXPECT_EQ(words, (Words{"--child", "4242", "--listener", "5", "--turn", "3,4,17", "--refuse", "50,listen,1",
                            "--refuse", "43,accept,1", "--refuse", "425,io_uring_setup,38"}));
    EXPECT_EQ(decode_supervisor_args(words), args);
}

TEST(ASessionWhoseChildFailedBeforeItsFilter, IsSupervisedWithNoListenerAndNoTurn)
{
    SupervisorArgs args;
    args.child_pid = 99;
    EXPECT_EQ(encode_supervisor_args(args), (Words{"--child", "99"}));
    EXPECT_EQ(decode_supervisor_args({"--child", "99"}), args);
    EXPECT_TRUE(inherited_fds(args).empty());
}

TEST(TheDescriptorsTheSupervisorKeeps, AreTheListenerAndTheTurnsInAscendingOrder)
{
    EXPECT_EQ(inherited_fds(a_session()), (std::vector<int>{3, 4, 5}));
}

TEST(SupervisorArgumentsWithoutAChild, AreRefused)
{
    NR_EXPECT_REFUSED(error, ErrorKind::LaunchFailed, decode_supervisor_args({"--listener", "3"}));
    EXPECT_NE(std::string(error->what()).find("--child is missing"), std::string::npos) << error->what();
}

TEST(ANumberThatIsNotWrittenTheCanonicalWay, IsRefused)
{
    for (const auto* pid : {"", "0", "1", "-5", "+5", "05", "4242x", " 4242", "99999999999"}) {
        NR_EXPECT_REFUSED(error, ErrorKind::LaunchFailed, decode_supervisor_args(with(1, pid)));
    }
}

TEST(ADescriptorOfTheStandardStreamsOrOneNamedTwice, IsRefused)
{
    for (const auto* listener : {"0", "1", "2", "3", "4"}) {
        NR_EXPECT_REFUSED(error, ErrorKind::LaunchFailed, decode_supervisor_args(with(3, listener)));
    }
    NR_EXPECT_REFUSED(same_turn_fds, ErrorKind::LaunchFailed, decode_supervisor_args(with(5, "6,6,17")));
}

TEST(ATurnThatIsNotTwoDescriptorsAndATicketNumber, IsRefused)
{
    for (const auto* turn : {"6,7", "6,7,0", "6,7,17,1", "6,,17", ",7,17", "6,7,18446744073709551616"}) {
        NR_EXPECT_REFUSED(error, ErrorKind::LaunchFailed, decode_supervisor_args(with(5, turn)));
    }
    EXPECT_EQ(decode_supervisor_args(with(5, "6,7,18446744073709551615")).turn->number, 18446744073709551615ULL);
}

TEST(ASupervisedCallThatIsMalformed, IsRefused)
{
    for (const auto* call : {"50,listen", "50,Listen,1", "50,listen,0", "50,listen,4096", "x,listen,1", "50,lis ten,1",
                             "50,,1", "-1,listen,1", "50,listen,1,2"}) {
        NR_EXPECT_REFUSED(error, ErrorKind::LaunchFailed, decode_supervisor_args(with(7, call)));
    }
    NR_EXPECT_REFUSED(long_name, ErrorKind::LaunchFailed,
                      decode_supervisor_args(with(7, "50," + std::string(65, 'a') + ",1")));
}

TEST(ASupervisedCallGivenTwice, IsRefusedByNumberAndByName)
{
    NR_EXPECT_REFUSED(by_number, ErrorKind::LaunchFailed, decode_supervisor_args(with(9, "50,accept,1")));
    NR_EXPECT_REFUSED(by_name, ErrorKind::LaunchFailed, decode_supervisor_args(with(9, "43,listen,1")));
}

TEST(AnUnknownOrRepeatedOptionOrAMissingValue, IsRefused)
{
    auto words = encode_supervisor_args(a_session());
    words.emplace_back("--verbose");
    words.emplace_back("1");
    NR_EXPECT_REFUSED(unknown, ErrorKind::LaunchFailed, decode_supervisor_args(words));
    NR_EXPECT_REFUSED(repeated_child, ErrorKind::LaunchFailed,
                      decode_supervisor_args({"--child", "5", "--child", "6"}));
    NR_EXPECT_REFUSED(repeated_listener, ErrorKind::LaunchFailed,
                      decode_supervisor_args({"--child", "5", "--listener", "3", "--listener", "4"}));
    NR_EXPECT_REFUSED(missing_value, ErrorKind::LaunchFailed, decode_supervisor_args({"--child", "5", "--listener"}));
}

TEST(OptionsInAnotherOrderThanTheEncoders, AreRefused)
{
    // Found by the fuzzer: a turn given after the calls decoded, but did not
    // encode back to the same words.
    NR_EXPECT_REFUSED(
        turn_last, ErrorKind::LaunchFailed,
        decode_supervisor_args({"--child", "99", "--listener", "17", "--refuse", "50,listen,1", "--turn", "3,4,1"}));
    NR_EXPECT_REFUSED(listener_after_child_reversed, ErrorKind::LaunchFailed,
                      decode_supervisor_args({"--listener", "17", "--child", "99"}));
}

TEST(ArgumentsTheDecoderWouldRefuse, AreNeverEncoded)
{
    auto args = a_session();
    args.calls.push_back({51, "listen", EPERM});
    NR_EXPECT_REFUSED(twice, ErrorKind::LaunchFailed, encode_supervisor_args(args));
    args = a_session();
    args.listener_fd = 1;
    NR_EXPECT_REFUSED(stdout_listener, ErrorKind::LaunchFailed, encode_supervisor_args(args));
    args = a_session();
    args.child_pid = 1;
    NR_EXPECT_REFUSED(init, ErrorKind::LaunchFailed, encode_supervisor_args(args));
}
