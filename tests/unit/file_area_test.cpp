// SPDX-License-Identifier: Apache-2.0
#include "core/files/file_area.h"

#include "test_support.h"

#include <gtest/gtest.h>

using namespace nr::core;

namespace {

Config a_config()
{
    Config c;
    c.data_dir = "/var/lib/app";
    return c;
}

} // namespace

TEST(TheWorkspaceArea, IsTheChatsDefaultWorkspace)
{
    EXPECT_EQ(file_area_path(a_config(), "alice", "c1", parse_file_area("workspace")),
              "/var/lib/app/native-runtime/alice/chats/c1/workspace");
}

TEST(TheHomeArea, IsTheOwnersHome)
{
    EXPECT_EQ(file_area_path(a_config(), "alice", "c1", parse_file_area("home")),
              "/var/lib/app/native-runtime/alice/home");
}

TEST(AnyOtherArea, IsRefused)
{
    for (const auto* name : {"", "/", "tmp", "Workspace", "../home"}) {
        NR_EXPECT_REFUSED(e, ErrorKind::InvalidArgument, parse_file_area(name));
    }
}

TEST(AnAreaOfAHostileOwnerOrChat, IsRefusedBeforeAnyPathIsBuilt)
{
    NR_EXPECT_REFUSED(owner, ErrorKind::InvalidArgument, file_area_path(a_config(), "../bob", "c1", FileArea::Home));
    NR_EXPECT_REFUSED(chat, ErrorKind::InvalidArgument,
                      file_area_path(a_config(), "alice", "c1/../../bob", FileArea::Workspace));
}
