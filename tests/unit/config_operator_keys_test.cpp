// SPDX-License-Identifier: Apache-2.0
// The configuration keys the operator surface reads: the snapshot dir the
// late drop-in grants, and the application units it is installed on.

#include "core/config/config.h"

#include "config_fixtures.h"
#include "test_support.h"

#include <gtest/gtest.h>

using namespace nr::core;

namespace {

using nr::test::kMinimal;

} // namespace

TEST(AConfigWithoutOperatorKeys, HasNoSnapshotDirAndNoAppUnits)
{
    const auto config = parse_config(kMinimal, "cfg.yaml");
    EXPECT_EQ(config.snapshot_dir, "");
    EXPECT_TRUE(config.app_units.empty());
}

TEST(AConfigWithOperatorKeys, ReadsTheSnapshotDirAndAppUnits)
{
    const auto config =
        parse_config(kMinimal + "snapshot_dir: /var/lib/snapshots\napp_units: [app.service, worker.service]\n", "c");
    EXPECT_EQ(config.snapshot_dir, "/var/lib/snapshots");
    EXPECT_EQ(config.app_units, (std::vector<std::string>{"app.service", "worker.service"}));
}

TEST(AConfigWithBadOperatorKeys, IsRefusedNamingTheKey)
{
    NR_EXPECT_REFUSED(relative, ErrorKind::ConfigInvalid, parse_config(kMinimal + "snapshot_dir: snaps\n", "c"));
    EXPECT_NE(std::string(relative->what()).find("snapshot_dir"), std::string::npos) << relative->what();
    NR_EXPECT_REFUSED(unit, ErrorKind::ConfigInvalid, parse_config(kMinimal + "app_units: [app.socket]\n", "c"));
    EXPECT_NE(std::string(unit->what()).find("c:8: app_units"), std::string::npos) << unit->what();
}
