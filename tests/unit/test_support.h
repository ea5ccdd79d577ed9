// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared helpers for the core unit tests: capture the typed Error a call
// throws, so tests assert on kind() and on the key parts of the message.

#include "core/base/error.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>
#include <utility>

namespace nr::test {

// The nr::core::Error thrown by `f`, or nullopt when `f` returns normally.
// Any other exception type propagates, which fails the test loudly.
template <typename F> std::optional<nr::core::Error> error_from(F&& f)
{
    try {
        std::forward<F>(f)();
    } catch (const nr::core::Error& e) {
        return e;
    }
    return std::nullopt;
}

inline std::string kind_name(const std::optional<nr::core::Error>& e)
{
    return e ? std::string(nr::core::error_name(e->kind())) : std::string("<nothing thrown>");
}

// One second in the microseconds the core's clocks count.
inline constexpr std::uint64_t kSec = 1000000;

// The home directory of owner alice under the tests' data directory.
inline constexpr const char* kHome = "/var/lib/nr/native-runtime/alice/home";

// The overflow uid: an identity that owns nothing.
inline constexpr uid_t kNobody = 65534;

// `text` with the first `from` replaced by `to`; a `from` that is not there
// fails the test (a fixture edit that silently does nothing tests nothing).
inline std::string replaced(std::string text, const std::string& from, const std::string& to)
{
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
}

} // namespace nr::test

// Asserts that `expr` throws nr::core::Error of `expected_kind` and binds the
// error to `var` for further checks on its message.
#define NR_EXPECT_REFUSED(var, expected_kind, expr)                                                                    \
    const auto var = ::nr::test::error_from([&] { (void)(expr); });                                                    \
    ASSERT_TRUE(var.has_value()) << #expr " was accepted";                                                             \
    EXPECT_EQ(::nr::core::error_name(var->kind()), ::nr::core::error_name(expected_kind)) << "message: " << var->what()
