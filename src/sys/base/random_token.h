// SPDX-License-Identifier: Apache-2.0
#pragma once
// Random bytes from the kernel (getrandom(2), blocking until its pool is
// ready), for claim tokens, receipt ids and keys, and temporary names.

#include "core/base/error.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace nr::sys {

// `count` random bytes (at most 256, which getrandom(2) never cuts short);
// fails with `kind` and "no randomness for `what`" when the kernel gives none.
std::string random_bytes(std::size_t count, core::ErrorKind kind, std::string_view what);

// random_bytes() as 2*count lowercase hex digits.
std::string random_hex(std::size_t count, core::ErrorKind kind, std::string_view what);

} // namespace nr::sys
