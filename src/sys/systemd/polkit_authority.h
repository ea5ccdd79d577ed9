// SPDX-License-Identifier: Apache-2.0
#pragma once
// Thin client for polkit's org.freedesktop.PolicyKit1.Authority: one
// CheckAuthorization per question, sent without waiting (the helper's
// single loop keeps serving other callers), bounded by core::kPolkitTimeout.
// Whether to ask and what the answer means are core decisions
// (core/plan/operator_authorization.h).

#include <sdbus-c++/sdbus-c++.h>

#include "core/plan/operator_authorization.h"

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string_view>
#include <sys/types.h>

namespace nr::sys {

class PolkitAuthority {
public:
    explicit PolkitAuthority(sdbus::IConnection& connection);
    ~PolkitAuthority();
    PolkitAuthority(const PolkitAuthority&) = delete;
    PolkitAuthority& operator=(const PolkitAuthority&) = delete;
    PolkitAuthority(PolkitAuthority&&) = delete;
    PolkitAuthority& operator=(PolkitAuthority&&) = delete;

    // Asks whether the sender of the call `object` is dispatching (its
    // unique bus name, as systemd's services do) may use `action`, with
    // no details, allowing interaction only when that call allowed it.
    // Must be called from within the handler; `caller_uid` is that
    // sender's. `done` runs later from the loop with polkit's answer, or
    // with an error name when polkit is absent, failed or did not answer in
    // time; at once with core::kPolkitLimitError when core::polkit_may_ask
    // says that caller or the helper has too many checks waiting; never
    // when this object goes first (the call is then cancelled).
    using Done = std::function<void(const core::PolkitReply& reply)>;
    void check(const sdbus::IObject& object, uid_t caller_uid, core::OperatorAction action, const Done& done);

    // Checks sent and not yet answered (the helper does not exit on idle
    // while one waits).
    [[nodiscard]] std::size_t pending() const { return pending_->total; }

private:
    struct Pending {
        std::size_t total = 0;
        std::map<uid_t, std::size_t> by_caller;
    };
    std::unique_ptr<sdbus::IProxy> proxy_;
    // Shared with the reply handlers, so that they count down without
    // holding a pointer to this object.
    std::shared_ptr<Pending> pending_ = std::make_shared<Pending>();
};

} // namespace nr::sys
