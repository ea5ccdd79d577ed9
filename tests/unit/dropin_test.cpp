// SPDX-License-Identifier: Apache-2.0
#include "core/ops/dropin.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace nr::core;

namespace {

const std::string kTemplate = "[Service]\n"
                              "ProcSubset=all\n"
                              "SupplementaryGroups=@WORKER_GROUP@\n"
                              "ReadWritePaths=@SNAPSHOT_DIR@\n";

const std::string kOurs = "/etc/systemd/system/app.service.d/zz-native-runtime.conf";

std::map<std::string, std::vector<std::string>> all_good()
{
    return {{"ProcSubset", {"all"}},
            {"ProtectProc", {"invisible"}},
            {"ProtectKernelTunables", {"yes"}},
            {"SupplementaryGroups", {"native-runtime"}},
            {"ReadWritePaths", {"/var/lib/snapshots"}}};
}

const DropinValues kValues{"/var/lib/snapshots", "native-runtime", ""};

} // namespace

TEST(TheLateDropinsName, SortsAfterNumberedAndNamedDropins)
{
    // systemd orders drop-ins by strcmp of the file name.
    for (const std::string other : {"99-override.conf", "override.conf", "50-ProcSubset.conf", "zoo.conf", "Z.conf"}) {
        EXPECT_GT(std::string(kDropinFileName), other);
    }
    EXPECT_LT(std::string(kDropinFileName), "zzz-later.conf") << "positive control: a later name exists";
}

TEST(TheDropinDirectory, LivesUnderEtcOfTheRoot)
{
    EXPECT_EQ(dropin_directory("", "app.service"), "/etc/systemd/system/app.service.d");
    EXPECT_EQ(dropin_directory("/", "app.service"), "/etc/systemd/system/app.service.d");
    EXPECT_EQ(dropin_directory("/img/", "app.service"), "/img/etc/systemd/system/app.service.d");
}

TEST(RenderingTheTemplate, FillsPlaceholdersAndStartsWithTheMarker)
{
    const auto text = render_dropin(kTemplate, kValues, false);
    EXPECT_EQ(text, std::string(kDropinMarker) + "\n[Service]\nProcSubset=all\nSupplementaryGroups=native-runtime\n"
                                                 "ReadWritePaths=/var/lib/snapshots\n");
    EXPECT_TRUE(inspect_installed(text).ours);
    EXPECT_FALSE(inspect_installed(text).created_directory);
}

TEST(RenderingTheTemplate, LeavesOutALineWhoseValueIsNotConfigured)
{
    const auto text = render_dropin(kTemplate, {"", "native-runtime", ""}, false);
    EXPECT_EQ(text.find("ReadWritePaths"), std::string::npos) << text;
    EXPECT_NE(text.find("SupplementaryGroups=native-runtime"), std::string::npos) << text;
}

TEST(RenderingTheTemplate, RecordsThatItCreatedTheDirectory)
{
    EXPECT_TRUE(inspect_installed(render_dropin(kTemplate, kValues, true)).created_directory);
}

TEST(RenderingTheTemplate, RefusesUnknownPlaceholdersAndLineBreaksInValues)
{
    NR_EXPECT_REFUSED(unknown, ErrorKind::ConfigInvalid, render_template("X=@NOPE@\n", {}));
    EXPECT_NE(std::string(unknown->what()).find("@NOPE@"), std::string::npos);
    NR_EXPECT_REFUSED(open, ErrorKind::ConfigInvalid, render_template("X=@NOPE\n", {{"NOPE", "x"}}));
    NR_EXPECT_REFUSED(newline, ErrorKind::ConfigInvalid,
                      render_dropin(kTemplate, {"/x\nExecStartPre=/bin/evil", "g", ""}, false));
}

TEST(AnOperatorsFile, IsNotOursEvenWithOurName)
{
    EXPECT_FALSE(inspect_installed("[Service]\nProcSubset=pid\n").ours);
    EXPECT_FALSE(inspect_installed("").ours);
    EXPECT_FALSE(inspect_installed("# x\n" + std::string(kDropinMarker) + "\n").ours);
}

TEST(AssignsKey, SeesServiceSectionAssignmentsIncludingResets)
{
    EXPECT_TRUE(assigns_key("[Service]\nProcSubset=pid\n", "ProcSubset"));
    EXPECT_TRUE(assigns_key("[Service]\n  ReadWritePaths =\n", "ReadWritePaths"));
    EXPECT_FALSE(assigns_key("[Service]\n# ProcSubset=pid\n", "ProcSubset"));
    EXPECT_FALSE(assigns_key("[Unit]\nProcSubset=pid\n", "ProcSubset"));
    EXPECT_FALSE(assigns_key("[Service]\nProcSubsetX=pid\n", "ProcSubset"));
}

TEST(EffectiveSettingsThatMatch, AreNoConflict)
{
    EXPECT_TRUE(
        find_conflicts(expected_settings(kValues), all_good(), {{kOurs, ""}}, kOurs, "/lib/app.service").empty());
}

TEST(ALaterDropinThatOverridesUs, IsNamed)
{
    auto observed = all_good();
    observed["ProcSubset"] = {"pid"};
    const std::vector<DropinFile> drop_ins{
        {"/etc/systemd/system/app.service.d/50-early.conf", "[Service]\nProcSubset=pid\n"},
        {kOurs, "[Service]\nProcSubset=all\n"},
        {"/run/systemd/system/app.service.d/zzz-late.conf", "[Service]\nProcSubset=pid\n"},
        {"/etc/systemd/system/app.service.d/zzzz-unrelated.conf", "[Service]\nNice=5\n"},
    };
    const auto conflicts = find_conflicts(expected_settings(kValues), observed, drop_ins, kOurs, "");
    ASSERT_EQ(conflicts.size(), 1U);
    EXPECT_EQ(conflicts[0].key, "ProcSubset");
    EXPECT_EQ(conflicts[0].culprit, "/run/systemd/system/app.service.d/zzz-late.conf");
    EXPECT_NE(conflicts[0].message.find("zzz-late.conf"), std::string::npos) << conflicts[0].message;
}

TEST(ALaterResetOfAList, IsNamed)
{
    auto observed = all_good();
    observed["ReadWritePaths"] = {};
    const std::vector<DropinFile> drop_ins{{kOurs, ""}, {"/etc/x.d/zzz.conf", "[Service]\nReadWritePaths=\n"}};
    const auto conflicts = find_conflicts(expected_settings(kValues), observed, drop_ins, kOurs, "");
    ASSERT_EQ(conflicts.size(), 1U);
    EXPECT_EQ(conflicts[0].culprit, "/etc/x.d/zzz.conf");
}

TEST(AConflictNoLaterDropinExplains, NamesTheUnitFile)
{
    auto observed = all_good();
    observed["ProtectKernelTunables"] = {"no"};
    const auto conflicts =
        find_conflicts(expected_settings(kValues), observed, {{kOurs, ""}}, kOurs, "/lib/systemd/system/app.service");
    ASSERT_EQ(conflicts.size(), 1U);
    EXPECT_EQ(conflicts[0].culprit, "");
    EXPECT_NE(conflicts[0].message.find("/lib/systemd/system/app.service"), std::string::npos);
}

TEST(ADropinSystemdDoesNotApply, IsAConflict)
{
    const auto conflicts = find_conflicts(expected_settings(kValues), all_good(), {}, kOurs, "");
    ASSERT_EQ(conflicts.size(), 1U);
    EXPECT_EQ(conflicts[0].key, "DropInPaths");
}

TEST(ExpectedSettings, IncludeTheSnapshotDirOnlyWhenConfigured)
{
    const auto without = expected_settings({"", "native-runtime", ""});
    EXPECT_EQ(std::count_if(without.begin(), without.end(), [](const auto& s) { return s.key == "ReadWritePaths"; }),
              0);
    const auto with = expected_settings(kValues);
    EXPECT_EQ(std::count_if(with.begin(), with.end(), [](const auto& s) { return s.key == "ReadWritePaths"; }), 1);
}

TEST(TheHelpersDropin, OpensTheDataDirAndTheSnapshotDirAndNothingElse)
{
    const std::string helper_template = "[Service]\nReadWritePaths=@DATA_DIR@\nReadWritePaths=@SNAPSHOT_DIR@\n";
    const DropinValues values{"/var/lib/snapshots", "native-runtime", "/var/lib/app"};
    const auto text = render_dropin(helper_template, values, false);
    EXPECT_NE(text.find("ReadWritePaths=/var/lib/app\n"), std::string::npos) << text;
    EXPECT_NE(text.find("ReadWritePaths=/var/lib/snapshots\n"), std::string::npos) << text;
    const auto expected = helper_expected_settings(values);
    ASSERT_EQ(expected.size(), 2U);
    EXPECT_EQ(expected[0].value, "/var/lib/app");
    EXPECT_EQ(expected[1].value, "/var/lib/snapshots");
    EXPECT_TRUE(expected[0].is_list);
}

TEST(TheHelpersDropinWithoutASnapshotDir, OpensOnlyTheDataDir)
{
    const std::string helper_template = "[Service]\nReadWritePaths=@DATA_DIR@\nReadWritePaths=@SNAPSHOT_DIR@\n";
    const DropinValues values{"", "native-runtime", "/var/lib/app"};
    const auto text = render_dropin(helper_template, values, false);
    EXPECT_EQ(text.find("ReadWritePaths=\n"), std::string::npos) << text;
    EXPECT_EQ(helper_expected_settings(values).size(), 1U);
}

TEST(TheHelpersDropinReset, IsAConflictNamingTheLaterFile)
{
    const std::string ours = "/etc/systemd/system/native-runtimed.service.d/zz-native-runtime.conf";
    const std::string reset = "/etc/systemd/system/native-runtimed.service.d/zzz-reset.conf";
    const DropinValues values{"", "native-runtime", "/var/lib/app"};
    const auto conflicts = find_conflicts(helper_expected_settings(values), {{"ReadWritePaths", {}}},
                                          {{ours, ""}, {reset, "[Service]\nReadWritePaths=\n"}}, ours, "");
    ASSERT_EQ(conflicts.size(), 1U);
    EXPECT_EQ(conflicts[0].culprit, reset);
}

TEST(ADropinValueWithWhitespace, IsRefusedRatherThanSplitIntoTwoPaths)
{
    const DropinValues values{"", "native-runtime", "/var/lib/my app"};
    NR_EXPECT_REFUSED(error, ErrorKind::ConfigInvalid, render_dropin("ReadWritePaths=@DATA_DIR@\n", values, false));
}

TEST(AUnitThatWantsTheHelperAndStartsAfterIt, StartsAfterTheHelper)
{
    EXPECT_TRUE(starts_after_the_helper({"sysinit.target", "native-runtimed.service"},
                                        {"basic.target", "native-runtimed.service", "sysinit.target"}));
}

TEST(AUnitMissingEitherLine, DoesNotStartAfterTheHelper)
{
    EXPECT_FALSE(starts_after_the_helper({"native-runtimed.service"}, {"basic.target"})) << "wanted, not ordered";
    EXPECT_FALSE(starts_after_the_helper({}, {"native-runtimed.service"})) << "ordered, not wanted";
    EXPECT_FALSE(starts_after_the_helper({}, {}));
    EXPECT_FALSE(starts_after_the_helper({"native-runtimed-other.service"}, {"native-runtimed.service.d"}))
        << "only the helper's own name counts";
}
