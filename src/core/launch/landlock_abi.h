// SPDX-License-Identifier: Apache-2.0
#pragma once
// The Landlock ABI the launcher needs, shared by the launcher that applies
// it and the preflight check that reports it, so the two cannot disagree.

namespace nr::core {

// The launcher scopes abstract unix sockets and signals with Landlock;
// both scopes came with ABI 6 (Linux 6.12).
inline constexpr long kLandlockAbiRequired = 6;

} // namespace nr::core
