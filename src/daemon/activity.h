// SPDX-License-Identifier: Apache-2.0
#pragma once
// When a caller last asked the helper for something. The helper exits once
// nothing is running and no call came for idle_timeout_sec, so every
// handler that may lead to work moves this on.

#include <chrono>

namespace nr::daemon {

class Activity {
public:
    void touch() { last_ = std::chrono::steady_clock::now(); }
    [[nodiscard]] std::chrono::steady_clock::time_point last() const { return last_; }

private:
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

} // namespace nr::daemon
