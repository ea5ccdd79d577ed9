#pragma once
// The helper refuses sessions until the host passes the same preflight
// checks `native-runtimectl preflight` runs (fail closed): a missing
// prerequisite becomes Error.PreflightFailed naming the check, never a
// session with weaker isolation.

#include "core/config.h"
#include "core/session_plan.h"
#include "sys/systemd_manager.h"

#include <sdbus-c++/sdbus-c++.h>

#include <string>

namespace nr::daemon {

class PreflightGate {
public:
    PreflightGate(sdbus::IConnection& connection, const core::Config& config, std::string launcher_path);

    // Runs the checks until they pass once, with `user` (the session's
    // run-as user) for the canary; then remembers the pass for this helper
    // instance. Throws core::Error(PreflightFailed) "<check>: detail (hint)".
    void require(const core::RunAsUser& user);

private:
    sys::SystemdManager systemd_;
    const core::Config& config_;
    std::string launcher_path_;
    bool passed_ = false;
};

} // namespace nr::daemon
