// SPDX-License-Identifier: Apache-2.0
#pragma once
// The check every config test makes of a refusal: kind ConfigInvalid and
// the "<file>:<line>: <key>: <problem>" shape.

#include "config_fixtures.h"
#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace nr::test {

inline void expect_config_error(const std::string& yaml, int line, const std::string& key, const std::string& problem)
{
    const auto e = error_from([&] { (void)parse(yaml); });
    ASSERT_TRUE(e.has_value()) << "accepted:\n" << yaml;
    EXPECT_EQ(e->kind(), nr::core::ErrorKind::ConfigInvalid) << e->what();
    EXPECT_THAT(e->what(),
                ::testing::StartsWith(std::string(kConfigSource) + ":" + std::to_string(line) + ": " + key + ": "));
    EXPECT_THAT(e->what(), ::testing::HasSubstr(problem));
}

} // namespace nr::test

#define EXPECT_CONFIG_ERROR(yaml, line, key, problem)                                                                  \
    do {                                                                                                               \
        SCOPED_TRACE("expected " + std::string(key) + " at line " + std::to_string(line));                             \
        ::nr::test::expect_config_error(yaml, line, key, problem);                                                     \
    } while (false)
