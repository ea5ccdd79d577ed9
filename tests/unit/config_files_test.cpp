// SPDX-License-Identifier: Apache-2.0
// The `files` section and the snapshot dir as file operations use them.

#include "core/config/config.h"

#include "config_fixtures.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

using namespace nr::core;
using ::testing::Contains;
using ::testing::HasSubstr;

namespace {

using nr::test::parse;

using nr::test::kMinimal;

} // namespace

TEST(AConfigWithoutAFilesSection, LimitsFilesTo64MiBAndKeepsTheKeyInTheHelpersStateDir)
{
    const auto c = parse(kMinimal);
    EXPECT_EQ(c.files.max_bytes, 64ULL << 20U);
    EXPECT_EQ(c.files.receipt_key, "/var/lib/native-runtime/receipt.key");
}

TEST(AConfigWithoutAFilesSection, LetsReceiptsLiveADay)
{
    EXPECT_EQ(parse(kMinimal).files.receipt_ttl_sec, 86400U);
}

TEST(TheFilesSection, SetsTheReceiptLifetimeInSeconds)
{
    EXPECT_EQ(parse(kMinimal + "files:\n  receipt_ttl_sec: 5\n").files.receipt_ttl_sec, 5U);
    EXPECT_EQ(parse(kMinimal + "files:\n  receipt_ttl_sec: 31536000\n").files.receipt_ttl_sec, 31536000U);
}

TEST(TheFilesSection, RefusesAReceiptLifetimeThatIsZeroTooLongSignedOrNotANumber)
{
    for (const auto* value : {"0", "31536001", "-5", "+5", "5s", "1h", "5.0", "\"\"", "[5]"}) {
        NR_EXPECT_REFUSED(e, ErrorKind::ConfigInvalid, parse(kMinimal + "files:\n  receipt_ttl_sec: " + value + "\n"));
        EXPECT_THAT(e->what(), HasSubstr("files.receipt_ttl_sec")) << value;
    }
}

TEST(TheFilesSection, SetsTheSizeLimitAndTheKeyPath)
{
    const auto c = parse(kMinimal + "files:\n  max_size: 2M\n  receipt_key: /etc/nr/receipt.key\n");
    EXPECT_EQ(c.files.max_bytes, 2ULL << 20U);
    EXPECT_EQ(c.files.receipt_key, "/etc/nr/receipt.key");
}

TEST(TheFilesSection, RefusesUnknownKeysAZeroLimitAndARelativeKeyPath)
{
    NR_EXPECT_REFUSED(unknown, ErrorKind::ConfigInvalid, parse(kMinimal + "files:\n  max_sise: 2M\n"));
    EXPECT_THAT(unknown->what(), HasSubstr("files.max_sise: unknown key"));
    NR_EXPECT_REFUSED(zero, ErrorKind::ConfigInvalid, parse(kMinimal + "files:\n  max_size: 0\n"));
    NR_EXPECT_REFUSED(relative, ErrorKind::ConfigInvalid, parse(kMinimal + "files:\n  receipt_key: key\n"));
}

TEST(TheSnapshotDir, IsAmongThePathsSessionsMustNeverSee)
{
    const auto c = parse(kMinimal + "snapshot_dir: /var/lib/snapshots\n");
    EXPECT_THAT(c.hidden_paths, Contains("/var/lib/snapshots"));
}

TEST(AReadOnlyGrantOverTheSnapshotDir, IsRefused)
{
    const std::string yaml = "data_dir: /var/lib/nr\n"
                             "snapshot_dir: /srv/snapshots\n"
                             "callers: {}\n"
                             "sandbox:\n"
                             "  read_only_paths: [/usr, /srv]\n"
                             "adapters:\n"
                             "  claude:\n"
                             "    executable: /usr/bin/claude\n";
    NR_EXPECT_REFUSED(e, ErrorKind::ConfigInvalid, parse(yaml));
    EXPECT_THAT(e->what(), HasSubstr("/srv/snapshots"));
}
