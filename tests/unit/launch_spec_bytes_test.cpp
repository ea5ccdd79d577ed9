// SPDX-License-Identifier: Apache-2.0
#include "core/launch/launch_spec_bytes.h"

#include "core/base/error.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

using namespace nr::core;
using ::testing::HasSubstr;

namespace {

// Every field set, with values the decoder of the spec would refuse too:
// the byte codec carries fields, it does not judge them.
LaunchSpecWire bytes_test_wire()
{
    LaunchSpecWire wire;
    wire.bwrap_argv = {"/usr/bin/bwrap", "--", "/usr/bin/claude", ""};
    wire.environment = {"HOME=/home/agent", std::string("WITH_NUL=a\0b", 12)};
    wire.denied_syscalls = {{"ioctl", 1, {{1, 0xffffffffULL, 0x5412}}}, {"ptrace", -7, {}}};
    wire.kill_foreign_abis = false;
    wire.dirs_base = "/var/lib/nr";
    wire.private_dirs = {"native-runtime/alice/home"};
    wire.admission_queue = "native-runtime/admission/claude";
    wire.checked_dirs = {{"/srv/work/alice", 0xfedcba9876543210ULL, 42}};
    wire.gateway_port = 65535;
    wire.protected_base = "/home/alice";
    wire.protected_paths = {{".claude/settings.json", false}, {".claude/hooks", true}};
    return wire;
}

void expect_refused(const std::string& bytes, const std::string& why)
{
    try {
        (void)launch_spec_from_bytes(bytes);
        ADD_FAILURE() << "accepted: " << why;
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::LaunchFailed) << why;
        EXPECT_THAT(e.what(), HasSubstr("launch spec")) << why;
    }
}

} // namespace

TEST(LaunchSpecBytes, GiveBackEveryFieldExactly)
{
    const auto wire = bytes_test_wire();
    EXPECT_EQ(launch_spec_from_bytes(launch_spec_bytes(wire)), wire);
}

TEST(LaunchSpecBytes, GiveBackAnEmptySpec)
{
    EXPECT_EQ(launch_spec_from_bytes(launch_spec_bytes(LaunchSpecWire{})), LaunchSpecWire{});
}

TEST(LaunchSpecBytes, AreLittleEndianLengthsAndCountsAfterTheMagic)
{
    LaunchSpecWire wire;
    wire.bwrap_argv = {"ab"};
    wire.kill_foreign_abis = true;
    wire.gateway_port = 0x1234;
    const std::string expected = std::string("nr-spec\x01", 8) +
                                 std::string("\x01\0\0\0\x02\0\0\0ab", 10) + // bwrap_argv
                                 std::string(4, '\0') +                      // environment
                                 std::string(4, '\0') +                      // denied_syscalls
                                 std::string("\x01", 1) +                    // kill_foreign_abis
                                 std::string(4, '\0') +                      // dirs_base
                                 std::string(4, '\0') +                      // private_dirs
                                 std::string(4, '\0') +                      // admission_queue
                                 std::string(4, '\0') +                      // checked_dirs
                                 std::string("\x34\x12", 2) +                // gateway_port
                                 std::string(4, '\0') +                      // protected_base
                                 std::string(4, '\0');                       // protected_paths
    EXPECT_EQ(launch_spec_bytes(wire), expected);
}

TEST(LaunchSpecBytes, CutShortAnywhereAreRefused)
{
    const auto bytes = launch_spec_bytes(bytes_test_wire());
    for (std::size_t length = 0; length < bytes.size(); ++length) {
        expect_refused(bytes.substr(0, length), "cut to " + std::to_string(length) + " bytes");
    }
}

TEST(LaunchSpecBytes, WithBytesAfterTheLastFieldAreRefused)
{
    expect_refused(launch_spec_bytes(bytes_test_wire()) + '\0', "one byte more");
}

TEST(LaunchSpecBytes, WithAnotherMagicAreRefused)
{
    auto bytes = launch_spec_bytes(bytes_test_wire());
    bytes[7] = '\x02';
    expect_refused(bytes, "version 2 of the layout");
}

TEST(LaunchSpecBytes, WithAFlagByteOtherThanZeroOrOneAreRefused)
{
    LaunchSpecWire wire;
    auto bytes = launch_spec_bytes(wire);
    // magic, bwrap_argv, environment, denied_syscalls, then the flag.
    const std::size_t flag_at = 8 + 4 + 4 + 4;
    ASSERT_EQ(bytes[flag_at], '\x01');
    bytes[flag_at] = '\x02';
    expect_refused(bytes, "kill_foreign_abis = 2");
}

TEST(LaunchSpecBytes, WithACountTheRestCannotHoldAreRefusedBeforeAnyAllocation)
{
    // bwrap_argv claims 2^32-1 strings in a buffer of a few bytes.
    const std::string bytes = std::string("nr-spec\x01", 8) + std::string("\xff\xff\xff\xff", 4) + std::string(8, '\0');
    expect_refused(bytes, "a forged count");
}

TEST(LaunchSpecBytes, LargerThanTheLimitAreRefusedOnBothSides)
{
    LaunchSpecWire wire;
    wire.environment = {"BIG=" + std::string(kMaxLaunchSpecBytes, 'x')};
    const auto too_big_to_write = nr::test::error_from([&] { (void)launch_spec_bytes(wire); });
    EXPECT_EQ(nr::test::kind_name(too_big_to_write), "LaunchFailed");
    expect_refused(std::string(kMaxLaunchSpecBytes + 1, '\0'), "one byte over the limit");
}
