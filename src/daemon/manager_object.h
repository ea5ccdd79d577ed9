// SPDX-License-Identifier: Apache-2.0
#pragma once
// The helper's public Manager interface (org.metis.NativeRuntime1.Manager):
// starting, stopping and counting sessions, and the preflight canary. Each
// handler follows the same order: parse, validate, authorize, act, emit,
// reply; every refusal is a typed error.

#include "core/config/config.h"
#include "daemon/activity.h"
#include "daemon/preflight_gate.h"
#include "daemon/session_registry.h"
#include "daemon/start_pipeline.h"
#include "dbus/native_runtime_adaptor.h"
#include "sys/systemd/polkit_authority.h"
#include "sys/systemd/systemd_manager.h"

#include <sdbus-c++/sdbus-c++.h>

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace nr::daemon {

class ManagerObject final : public sdbus::AdaptorInterfaces<org::metis::NativeRuntime1::Manager_adaptor> {
public:
    ManagerObject(sdbus::IConnection& connection, const core::Config& config, sys::SystemdManager& systemd,
                  const SessionRegistry& sessions, PreflightGate& gate, StartPipeline& pipeline, Activity& activity);
    ~ManagerObject();
    ManagerObject(const ManagerObject&) = delete;
    ManagerObject& operator=(const ManagerObject&) = delete;
    ManagerObject(ManagerObject&&) = delete;
    ManagerObject& operator=(ManagerObject&&) = delete;

    // polkit checks still waiting for an answer: the helper stays up for them.
    [[nodiscard]] std::size_t authorizations_pending() const { return polkit_.pending(); }

private:
    using StopReply = sdbus::Result<>;

    // Asynchronous on the bus (Method.Async=server): the first session of
    // an instance may wait for the canary, whose launcher calls Claim on
    // this same connection.
    void StartSession(StartReply&& result, std::string owner, std::string chat, std::string job, std::string adapter,
                      std::vector<std::string> argv, std::string workspace,
                      std::map<std::string, std::string> environment, std::string run_as_user, sdbus::UnixFd stdin_fd,
                      sdbus::UnixFd stdout_fd, sdbus::UnixFd stderr_fd) override;
    void StartSessionWithOptions(StartReply&& result, std::string owner, std::string chat, std::string adapter,
                                 std::vector<std::string> argv, sdbus::UnixFd stdin_fd, sdbus::UnixFd stdout_fd,
                                 sdbus::UnixFd stderr_fd, std::map<std::string, sdbus::Variant> options) override;
    // Asynchronous too: a caller today's rule refuses may wait for polkit
    // (core/plan/operator_authorization.h) while others are served.
    void RunCanary(CanaryReply&& result, std::string run_as_user) override;
    void StopSession(StopReply&& result, std::string owner, std::string chat) override;
    std::string Version() override;
    uint32_t ActiveSessions() override;

    // What each verb does once the caller is authorized; a core::Error
    // refuses.
    void start_canary(CanaryReply&& result, const std::string& run_as_user);
    void stop_session(const core::SessionRef& ref, const core::Caller& caller, std::string_view granted_by);

    const core::Config& config_;
    sys::SystemdManager& systemd_;
    const SessionRegistry& sessions_;
    PreflightGate& gate_;
    StartPipeline& pipeline_;
    Activity& activity_;
    // Last, so that it goes first: its pending checks are cancelled before
    // anything their answers would use.
    sys::PolkitAuthority polkit_;
};

} // namespace nr::daemon
