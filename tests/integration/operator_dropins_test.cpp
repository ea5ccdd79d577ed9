// SPDX-License-Identifier: Apache-2.0
// The late drop-in installer against the harness's real systemd: it writes,
// reloads and reads back; a later-sorting drop-in that overrides it is
// named; uninstall restores what systemd applied before.

#include "fixture.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>

using namespace nr::itest;

namespace {

const std::string kUnitDir = "/etc/systemd/system";

void daemon_reload()
{
    ASSERT_EQ(run({"systemctl", "daemon-reload"}).status, 0);
}

// An application unit that hardens itself with ProcSubset=pid, the setting
// the late drop-in exists to override.
std::string make_app_unit(const std::string& name)
{
    write_file(kUnitDir + "/" + name, "[Unit]\nDescription=native-runtime drop-in test app\n"
                                      "[Service]\nExecStart=/bin/true\nProcSubset=pid\nProtectProc=default\n");
    return name;
}

std::string dropin_path(const std::string& unit)
{
    return kUnitDir + "/" + unit + ".d/zz-native-runtime.conf";
}

// The harness config, with a snapshot dir so the drop-in carries
// ReadWritePaths= (the harness configures one; older configs get it here).
std::vector<std::string> snapshot_config_env()
{
    const std::string config = "/etc/native-runtime/dropin-test.yaml";
    std::ifstream in("/etc/native-runtime/config.yaml");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("\nsnapshot_dir: /var/lib/nr-snapshots\n") == std::string::npos) {
        text += "snapshot_dir: /var/lib/nr-snapshots\n";
    }
    write_file(config, text);
    return {"NATIVE_RUNTIME_CONFIG=" + config};
}

Outcome ctl_as_root(const std::vector<std::string>& args)
{
    std::vector<std::string> argv{kCtl};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, with_env(snapshot_config_env()));
}

} // namespace

TEST(InstallingTheLateDropin, MakesItsSettingsEffectiveAndIsIdempotent)
{
    const auto unit = make_app_unit("nr-dropin-app.service");
    daemon_reload();
    ASSERT_EQ(unit_property(unit, "ProcSubset"), "pid") << "positive control: the unit's own setting applies";

    const auto install = ctl_as_root({"install-dropins", "--unit", unit});
    EXPECT_EQ(install.status, 0) << install.out << install.err;
    EXPECT_NE(install.out.find(unit + ": installed " + dropin_path(unit)), std::string::npos) << install.out;
    EXPECT_NE(install.out.find(unit + ": in effect"), std::string::npos) << install.out;
    EXPECT_EQ(unit_property(unit, "ProcSubset"), "all");
    EXPECT_EQ(unit_property(unit, "ProtectProc"), "invisible");
    EXPECT_EQ(unit_property(unit, "ProtectKernelTunables"), "yes");
    EXPECT_NE(unit_property(unit, "SupplementaryGroups").find("native-runtime"), std::string::npos);
    EXPECT_NE(unit_property(unit, "ReadWritePaths").find("/var/lib/nr-snapshots"), std::string::npos);

    struct stat st {};
    ASSERT_EQ(stat(dropin_path(unit).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777U, 0644U);

    const auto again = ctl_as_root({"install-dropins", "--unit", unit});
    EXPECT_EQ(again.status, 0) << again.err;
    EXPECT_NE(again.out.find(unit + ": unchanged"), std::string::npos) << again.out;

    const auto uninstall = ctl_as_root({"uninstall-dropins", "--unit", unit});
    EXPECT_EQ(uninstall.status, 0) << uninstall.err;
    EXPECT_EQ(unit_property(unit, "ProcSubset"), "pid") << "the previous effective value is back";
    EXPECT_EQ(unit_property(unit, "ProtectProc"), "default");
    EXPECT_FALSE(exists(dropin_path(unit)));
    EXPECT_FALSE(exists(kUnitDir + "/" + unit + ".d")) << "the directory it created is gone too";
}

TEST(ALaterSortingDropinThatOverridesOurs, IsDetectedAndNamed)
{
    const auto unit = make_app_unit("nr-dropin-conflict.service");
    const auto later = kUnitDir + "/" + unit + ".d/zzz-operator.conf";
    const auto earlier = kUnitDir + "/" + unit + ".d/50-operator.conf";
    write_file(earlier, "[Service]\nProcSubset=pid\n");
    daemon_reload();

    const auto without_later = ctl_as_root({"install-dropins", "--unit", unit});
    EXPECT_EQ(without_later.status, 0) << "positive control: an earlier drop-in loses: " << without_later.err;

    write_file(later, "[Service]\nProcSubset=pid\n");
    const auto with_later = ctl_as_root({"install-dropins", "--unit", unit});
    EXPECT_EQ(with_later.status, 1) << with_later.out;
    EXPECT_NE(with_later.err.find("ProcSubset"), std::string::npos) << with_later.err;
    EXPECT_NE(with_later.err.find("overridden by " + later), std::string::npos) << with_later.err;
    EXPECT_EQ(with_later.err.find(earlier), std::string::npos) << "the earlier file is not blamed";

    std::filesystem::remove(later);
    std::filesystem::remove(earlier);
    EXPECT_EQ(ctl_as_root({"uninstall-dropins", "--unit", unit}).status, 0);
    EXPECT_TRUE(exists(kUnitDir + "/" + unit + ".d")) << "the directory predates the install and stays";
}

TEST(AnOperatorsFileWithOurName, IsNeitherOverwrittenNorRemoved)
{
    const auto unit = make_app_unit("nr-dropin-foreign.service");
    write_file(dropin_path(unit), "[Service]\nNice=5\n");
    daemon_reload();
    const auto install = ctl_as_root({"install-dropins", "--unit", unit});
    EXPECT_NE(install.status, 0);
    EXPECT_NE(install.err.find("not written by native-runtimectl"), std::string::npos) << install.err;
    const auto uninstall = ctl_as_root({"uninstall-dropins", "--unit", unit});
    EXPECT_NE(uninstall.status, 0);
    EXPECT_TRUE(exists(dropin_path(unit)));
    std::filesystem::remove_all(kUnitDir + "/" + unit + ".d");
}

TEST(AnImageBuildInstall, WritesBelowTheRootWithoutTouchingSystemd)
{
    const std::string root = "/var/tmp/nr-dropin-image";
    std::filesystem::remove_all(root);
    const auto install = ctl_as_root({"install-dropins", "--unit", "image-app.service", "--root", root});
    EXPECT_EQ(install.status, 0) << install.err;
    const auto file = root + "/etc/systemd/system/image-app.service.d/zz-native-runtime.conf";
    std::ifstream in(file);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("ProcSubset=all\n"), std::string::npos) << text;
    EXPECT_NE(text.find("ReadWritePaths=/var/lib/nr-snapshots\n"), std::string::npos) << text;
    EXPECT_EQ(install.out.find("in effect"), std::string::npos) << "no verification against the running systemd";
    EXPECT_EQ(ctl_as_root({"uninstall-dropins", "--unit", "image-app.service", "--root", root}).status, 0);
    EXPECT_FALSE(exists(file));
    std::filesystem::remove_all(root);
}

TEST(ABadUnitName, IsAUsageError)
{
    EXPECT_EQ(ctl_as_root({"install-dropins", "--unit", "../evil.service"}).status, 64);
    EXPECT_EQ(ctl_as_root({"install-dropins", "--unit", "native-runtimed.service"}).status, 64);
}
