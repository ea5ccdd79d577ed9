// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the egress gateway's integration tests share (gateway_test.cpp,
// gateway_attack_test.cpp): the upstream's CA and certificate, its names
// that only the gateway's unit resolves, the real key as the gateway's
// systemd credential, and ways to run nr-gateway-client in a session and to
// read what the gateway and `status` say about it.

#include "fixture.h"
#include "model_endpoint.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nr::itest {

inline constexpr const char* kGatewayTestDir = "/run/nr-gateway-test";
inline constexpr const char* kGatewayUnit = "native-runtime-gateway.service";
inline constexpr const char* kUpstreamName = "upstream.nr-test";
inline constexpr const char* kTunnelName = "tunnel.nr-test";
inline constexpr int kUpstreamPort = 8443;
inline constexpr const char* kGatewayClient = "/usr/libexec/native-runtime/tests/nr-gateway-client";

// Sets the gateway up once per test suite and removes all of it afterwards.
class GatewayFixture : public ::testing::Test {
protected:
    static void SetUpTestSuite();
    static void TearDownTestSuite();

    // The scripted model endpoint (OpenAI's API) as the gateway's HTTPS
    // upstream on 127.0.0.1:kUpstreamPort, expecting the real key.
    static std::unique_ptr<ModelEndpoint> upstream();

    // Where the upstream listens, with its certificate.
    static EndpointListen upstream_listen();

    // The provider's real key: only the gateway's unit gets it.
    static inline std::string real_key_;
};

std::string random_hex(std::size_t bytes);

// The unit's main process and its descendants (at most 64), parents first.
std::vector<std::string> session_pids(const std::string& unit);

// The value of NAME in the environment of the unit's main process or any
// of its descendants: how root on the host reads a running session's
// placeholder token.
std::string session_env(const std::string& unit, const std::string& name);

// What session_env walked, for a failure message.
std::string process_tree(const std::string& unit);

// nr-gateway-client ARGS... in a gateway-client session of (owner, chat),
// run by the worker.
std::vector<std::string> owners_client_session(const std::string& owner, const std::string& chat,
                                               const std::vector<std::string>& args);

// The same for the owner alice.
std::vector<std::string> client_session(const std::string& chat, const std::vector<std::string>& args);

// `status --json` of a session as root, or null when there is no session.
nlohmann::json status_json(const std::string& owner, const std::string& chat);

// status["gateway"][whose][what], 0 when absent.
std::uint64_t gateway_count(const nlohmann::json& status, const char* whose, const char* what);

std::string gateway_main_pid();

// The gateway's records about `unit` written by process `pid`, as journalctl
// prints them with -o verbose.
std::string gateway_records(const std::string& unit, const std::string& pid);

// Every message the gateway's process `pid` logged.
std::string gateway_messages(const std::string& pid);

} // namespace nr::itest
