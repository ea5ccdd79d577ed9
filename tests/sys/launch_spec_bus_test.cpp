// SPDX-License-Identifier: Apache-2.0
#include "sys/bus/launch_spec_bus.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

using namespace nr;

namespace {

core::LaunchSpecWire full_wire()
{
    core::LaunchSpecWire wire;
    wire.bwrap_argv = {"/usr/bin/bwrap", "--", "/usr/bin/true"};
    wire.environment = {"PATH=/usr/bin", "KEY=secret"};
    wire.denied_syscalls = {{"listen", EPERM, {}}, {"ioctl", EPERM, {{1, core::kLow32Bits, 0x5412}}}};
    wire.kill_foreign_abis = false;
    wire.dirs_base = "/var/lib/nr";
    wire.private_dirs = {"native-runtime/alice/home"};
    wire.admission_queue = "native-runtime/admission/claude";
    wire.checked_dirs = {{"/srv/work", 7, 8}};
    wire.gateway_port = 8080;
    wire.protected_base = "/var/lib/nr/native-runtime/alice/home";
    wire.protected_paths = {{".claude/settings.json", false}, {".claude/hooks", true}};
    return wire;
}

} // namespace

TEST(AClaimReply, CarriesTheWireUnchangedThroughTheBusTypes)
{
    const auto wire = full_wire();
    EXPECT_EQ(sys::from_claim_reply(sys::to_claim_reply(wire)), wire);
}

// The order of dbus/org.metis.NativeRuntime1.Launcher.xml's Claim out arguments.
TEST(AClaimReply, PutsEachFieldAtItsArgumentPosition)
{
    const auto wire = full_wire();
    const auto reply = sys::to_claim_reply(wire);
    EXPECT_EQ(std::get<0>(reply), wire.bwrap_argv);
    EXPECT_EQ(std::get<1>(reply), wire.environment);
    ASSERT_EQ(std::get<2>(reply).size(), 2U);
    EXPECT_EQ(std::get<2>(reply)[1].get<0>(), "ioctl");
    EXPECT_EQ(std::get<2>(reply)[1].get<2>().at(0).get<2>(), 0x5412U);
    EXPECT_EQ(std::get<3>(reply), wire.kill_foreign_abis);
    EXPECT_EQ(std::get<4>(reply), wire.dirs_base);
    EXPECT_EQ(std::get<5>(reply), wire.private_dirs);
    EXPECT_EQ(std::get<6>(reply), wire.admission_queue);
    ASSERT_EQ(std::get<7>(reply).size(), 1U);
    EXPECT_EQ(std::get<7>(reply)[0].get<0>(), "/srv/work");
    EXPECT_EQ(std::get<7>(reply)[0].get<2>(), 8U);
    EXPECT_EQ(std::get<8>(reply), 8080U);
    EXPECT_EQ(std::get<9>(reply), wire.protected_base);
    ASSERT_EQ(std::get<10>(reply).size(), 2U);
    EXPECT_EQ(std::get<10>(reply)[0].get<0>(), ".claude/settings.json");
    EXPECT_FALSE(std::get<10>(reply)[0].get<1>());
    EXPECT_EQ(std::get<10>(reply)[1].get<0>(), ".claude/hooks");
    EXPECT_TRUE(std::get<10>(reply)[1].get<1>());
}
