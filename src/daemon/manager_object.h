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
#include "sys/systemd/systemd_manager.h"

#include <sdbus-c++/sdbus-c++.h>

#include <map>
#include <string>
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

private:
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
    void RunCanary(CanaryReply&& result, std::string run_as_user) override;
    void StopSession(const std::string& owner, const std::string& chat) override;
    std::string Version() override;
    uint32_t ActiveSessions() override;

    const core::Config& config_;
    sys::SystemdManager& systemd_;
    const SessionRegistry& sessions_;
    PreflightGate& gate_;
    StartPipeline& pipeline_;
    Activity& activity_;
};

} // namespace nr::daemon
