#pragma once
// Shared helpers for the core unit tests: capture the typed Error a call
// throws, so tests assert on kind() and on the key parts of the message.

#include "core/base/error.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
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

} // namespace nr::test

// Asserts that `expr` throws nr::core::Error of `expected_kind` and binds the
// error to `var` for further checks on its message.
#define NR_EXPECT_REFUSED(var, expected_kind, expr)                                                                    \
    const auto var = ::nr::test::error_from([&] { (void)(expr); });                                                    \
    ASSERT_TRUE(var.has_value()) << #expr " was accepted";                                                             \
    EXPECT_EQ(::nr::core::error_name(var->kind()), ::nr::core::error_name(expected_kind)) << "message: " << var->what()
