// SPDX-License-Identifier: Apache-2.0
#include "core/base/app_unit_name.h"

#include "test_support.h"

#include <gtest/gtest.h>

using namespace nr::core;

TEST(AnAppUnitName, IsAcceptedWhenItIsAService)
{
    validate_app_unit_name("metis-app.service");
    validate_app_unit_name("worker@1.service");
    validate_app_unit_name("a\\x2db.service");
}

TEST(AnAppUnitName, IsRefusedWhenNotAServiceOrOneOfOurs)
{
    for (const auto* bad :
         {"app", "app.socket", ".service", "../x.service", "a/b.service", "a b.service", "native-runtimed.service",
          "native-runtime-alice-c1.service", "a@b@c.service", "-x.service", "app.service\n"}) {
        NR_EXPECT_REFUSED(e, ErrorKind::InvalidArgument, validate_app_unit_name(bad));
    }
}
