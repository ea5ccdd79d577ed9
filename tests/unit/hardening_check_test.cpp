// SPDX-License-Identifier: Apache-2.0
#include "core/plan/hardening_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

using namespace nr::core;
using ::testing::ElementsAre;

namespace {

const UnitProperties kPlanned = {
    {"Description", std::string("native-runtime session owner=alice chat=c1 adapter=shell")},
    {"User", std::string("1000")},
    {"NoNewPrivileges", true},
    {"CapabilityBoundingSet", std::uint64_t{0}},
    {"MemoryMax", std::uint64_t{512} << 20U},
    {"SystemCallArchitectures", std::vector<std::string>{"native"}},
    {"IPAddressDeny", AddressList{{parse_ip_prefix("10.0.0.0/8"), parse_ip_prefix("127.0.0.0/8")}}},
    {"IPAddressAllow", AddressList{{parse_ip_prefix("127.0.0.2")}}},
    {"StandardInputFileDescriptor", StdioSlot::Input},
    {"ExtraFileDescriptors", PassedDescriptorSlot{"nr-helper-channel"}},
    {"ExecStart", ExecCommand{"/usr/libexec/launch", {"/usr/libexec/launch", "--claim", "t"}}},
};

EffectiveProperties as_applied()
{
    return {
        {"User", std::string("1000")},
        {"NoNewPrivileges", true},
        {"CapabilityBoundingSet", std::uint64_t{0}},
        {"MemoryMax", std::uint64_t{512} << 20U},
        {"SystemCallArchitectures", std::vector<std::string>{"native"}},
        {"IPAddressDeny", AddressList{{parse_ip_prefix("10.0.0.0/8"), parse_ip_prefix("127.0.0.0/8")}}},
        {"IPAddressAllow", AddressList{{parse_ip_prefix("127.0.0.2")}}},
        {"ExecStart", ExecCommand{"/usr/libexec/launch", {"/usr/libexec/launch", "--claim", "t"}}},
    };
}

} // namespace

TEST(CheckedProperties, LeaveOutDescriptionAndDescriptorSlots)
{
    EXPECT_THAT(checked_property_names(kPlanned),
                ElementsAre("User", "NoNewPrivileges", "CapabilityBoundingSet", "MemoryMax", "SystemCallArchitectures",
                            "IPAddressDeny", "IPAddressAllow", "ExecStart"));
}

TEST(AUnitAsPlanned, HasNoWeakening)
{
    EXPECT_FALSE(find_weakening(kPlanned, as_applied()).has_value());
}

TEST(ADropInThatTurnsOffNoNewPrivileges, IsAWeakeningNamingTheProperty)
{
    auto effective = as_applied();
    effective["NoNewPrivileges"] = false;
    const auto weakening = find_weakening(kPlanned, effective);
    ASSERT_TRUE(weakening.has_value());
    EXPECT_EQ(weakening->property, "NoNewPrivileges");
    EXPECT_EQ(weakening->planned, "yes");
    EXPECT_EQ(weakening->effective, "no");
}

TEST(AHigherMemoryLimit, IsAWeakeningAndInfinityIsNamedAsSuch)
{
    auto effective = as_applied();
    effective["MemoryMax"] = std::numeric_limits<std::uint64_t>::max();
    const auto weakening = find_weakening(kPlanned, effective);
    ASSERT_TRUE(weakening.has_value());
    EXPECT_EQ(weakening->property, "MemoryMax");
    EXPECT_EQ(weakening->effective, "infinity");
}

TEST(ALowerMemoryLimit, IsNotAWeakening)
{
    auto effective = as_applied();
    effective["MemoryMax"] = std::uint64_t{64} << 20U;
    EXPECT_FALSE(find_weakening(kPlanned, effective).has_value());
}

TEST(ACapabilityGainedInTheBoundingSet, IsAWeakening)
{
    auto effective = as_applied();
    effective["CapabilityBoundingSet"] = std::uint64_t{1} << 21U; // CAP_SYS_ADMIN
    EXPECT_EQ(find_weakening(kPlanned, effective)->property, "CapabilityBoundingSet");
}

TEST(ADenyListMissingARange, IsAWeakeningButALongerOneIsNot)
{
    auto effective = as_applied();
    effective["IPAddressDeny"] = AddressList{{parse_ip_prefix("10.0.0.0/8")}};
    EXPECT_EQ(find_weakening(kPlanned, effective)->property, "IPAddressDeny");

    effective["IPAddressDeny"] =
        AddressList{{parse_ip_prefix("10.0.0.0/8"), parse_ip_prefix("127.0.0.0/8"), parse_ip_prefix("192.168.0.0/16")}};
    EXPECT_FALSE(find_weakening(kPlanned, effective).has_value());
}

TEST(AnAllowListWithAnExtraAddress, IsAWeakeningButAnEmptyOneIsNot)
{
    auto effective = as_applied();
    effective["IPAddressAllow"] = AddressList{{parse_ip_prefix("127.0.0.2"), parse_ip_prefix("10.1.2.3")}};
    EXPECT_EQ(find_weakening(kPlanned, effective)->property, "IPAddressAllow");

    effective["IPAddressAllow"] = AddressList{};
    EXPECT_FALSE(find_weakening(kPlanned, effective).has_value());
}

TEST(AnotherUserOrCommand, IsAWeakening)
{
    auto effective = as_applied();
    effective["User"] = std::string("0");
    EXPECT_EQ(find_weakening(kPlanned, effective)->property, "User");

    effective = as_applied();
    effective["ExecStart"] = ExecCommand{"/bin/sh", {"/bin/sh"}};
    EXPECT_EQ(find_weakening(kPlanned, effective)->property, "ExecStart");
}

TEST(APropertySystemdDoesNotReport, IsAWeakening)
{
    auto effective = as_applied();
    effective.erase("SystemCallArchitectures");
    const auto weakening = find_weakening(kPlanned, effective);
    ASSERT_TRUE(weakening.has_value());
    EXPECT_EQ(weakening->property, "SystemCallArchitectures");
    EXPECT_EQ(weakening->effective, "(not reported by systemd)");
}

TEST(AValueOfAnotherType, IsAWeakening)
{
    auto effective = as_applied();
    effective["NoNewPrivileges"] = std::string("yes");
    EXPECT_EQ(find_weakening(kPlanned, effective)->property, "NoNewPrivileges");
}

namespace {

const UnitProperties kNameLists = {
    {"SystemCallFilter", NameList{false, {"ptrace", "reboot"}}},
    {"SystemCallErrorNumber", ErrorNumber{1}},
    {"RestrictAddressFamilies", NameList{true, {"AF_UNIX", "AF_INET"}}},
};

EffectiveProperties name_lists_as_applied()
{
    return {
        {"SystemCallFilter", NameList{false, {"ptrace", "reboot"}}},
        {"SystemCallErrorNumber", ErrorNumber{1}},
        {"RestrictAddressFamilies", NameList{true, {"AF_INET", "AF_UNIX"}}},
    };
}

} // namespace

TEST(NameLists, AsPlannedInAnyOrderHaveNoWeakening)
{
    EXPECT_FALSE(find_weakening(kNameLists, name_lists_as_applied()).has_value());
}

TEST(ASyscallDenyList, MayGrowButNotLoseANameNorBecomeAnAllowList)
{
    auto effective = name_lists_as_applied();
    effective["SystemCallFilter"] = NameList{false, {"reboot", "swapon", "ptrace"}};
    EXPECT_FALSE(find_weakening(kNameLists, effective).has_value());

    effective["SystemCallFilter"] = NameList{false, {"reboot"}};
    auto weakening = find_weakening(kNameLists, effective);
    ASSERT_TRUE(weakening.has_value());
    EXPECT_EQ(weakening->property, "SystemCallFilter");
    EXPECT_EQ(weakening->planned, "~ptrace reboot");
    EXPECT_EQ(weakening->effective, "~reboot");

    // What a drop-in with an empty SystemCallFilter= leaves.
    effective["SystemCallFilter"] = NameList{false, {}};
    weakening = find_weakening(kNameLists, effective);
    ASSERT_TRUE(weakening.has_value());
    EXPECT_EQ(weakening->effective, "~(none)");

    effective["SystemCallFilter"] = NameList{true, {"ptrace", "reboot"}};
    EXPECT_TRUE(find_weakening(kNameLists, effective).has_value());
}

TEST(AnAddressFamilyAllowList, MayShrinkButNotGrowNorBecomeADenyList)
{
    auto effective = name_lists_as_applied();
    effective["RestrictAddressFamilies"] = NameList{true, {"AF_UNIX"}};
    EXPECT_FALSE(find_weakening(kNameLists, effective).has_value());

    effective["RestrictAddressFamilies"] = NameList{true, {"AF_UNIX", "AF_INET", "AF_PACKET"}};
    const auto weakening = find_weakening(kNameLists, effective);
    ASSERT_TRUE(weakening.has_value());
    EXPECT_EQ(weakening->property, "RestrictAddressFamilies");
    EXPECT_EQ(weakening->planned, "only AF_UNIX AF_INET");

    effective["RestrictAddressFamilies"] = NameList{false, {}};
    EXPECT_TRUE(find_weakening(kNameLists, effective).has_value());
}

TEST(AnotherSyscallErrorNumber, IsAWeakening)
{
    auto effective = name_lists_as_applied();
    effective["SystemCallErrorNumber"] = ErrorNumber{-1}; // systemd's "kill" for the error number unset
    const auto weakening = find_weakening(kNameLists, effective);
    ASSERT_TRUE(weakening.has_value());
    EXPECT_EQ(weakening->property, "SystemCallErrorNumber");
}
