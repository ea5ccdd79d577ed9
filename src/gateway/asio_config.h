// SPDX-License-Identifier: Apache-2.0
#pragma once
// Included before any Boost.Asio header. Asio 1.74 (Boost 1.74, Debian 12)
// enables co_await for GCC's <coroutine> but, for clang, only with the old
// coroutines TS; clang 14 and later implement C++20 coroutines against
// libstdc++'s <coroutine> too, which clang-tidy needs to parse the gateway.

#if defined(__clang__) && defined(__cpp_impl_coroutine) && __has_include(<coroutine>)
#ifndef BOOST_ASIO_HAS_CO_AWAIT
#define BOOST_ASIO_HAS_CO_AWAIT 1
#endif
#ifndef BOOST_ASIO_HAS_STD_COROUTINE
#define BOOST_ASIO_HAS_STD_COROUTINE 1
#endif
#endif
