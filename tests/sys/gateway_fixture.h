// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the gateway's sys tests share: one built native-runtime-gateway and
// one HTTPS upstream for the whole test binary (gateway_test.cpp says how
// they are set up), sessions registered as the helper registers them, and
// raw HTTP over loopback.

#include "core/base/network_policy.h"
#include "core/gateway/egress.h"
#include "sys/base/unique_fd.h"
#include "temp_tree.h"
#include "test_paths.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <optional>
#include <poll.h>
#include <sstream>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace nr::test::gateway {

using nr::sys::UniqueFd;
namespace fs = std::filesystem;

inline const std::string kRealKey = "sk-test-real-key-5d1c0e";
inline constexpr int kSseEvents = 10;

inline pid_t spawn(const std::vector<std::string>& argv, const std::string& log)
{
    const pid_t pid = fork();
    if (pid == 0) {
        const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (out >= 0) {
            dup2(out, STDOUT_FILENO);
            dup2(out, STDERR_FILENO);
        }
        std::vector<char*> args;
        for (const auto& a : argv) {
            args.push_back(const_cast<char*>(a.c_str()));
        }
        args.push_back(nullptr);
        execvp(args[0], args.data());
        _exit(127);
    }
    return pid;
}

inline int run(const std::vector<std::string>& argv, const std::string& log)
{
    const pid_t pid = spawn(argv, log);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline bool wait_for_file(const std::string& path)
{
    for (int i = 0; i < 200; ++i) {
        if (fs::exists(path)) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return false;
}

// Waits (at most 10 s) until the gateway's control socket at `path` takes
// connections. The file appears at bind(), before listen(), and a connect
// in between is refused, which a loaded machine makes long enough to hit.
inline bool wait_for_control_socket(const std::string& path)
{
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    for (int i = 0; i < 400; ++i) {
        const UniqueFd probe(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
        if (connect(probe.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return false;
}

inline std::string token_of(char c)
{
    return std::string(64, c);
}

// The gateway and the upstream, started once for every test of this file
// that needs them and stopped when the test binary exits.
class Environment {
public:
    Environment()
    {
        const auto openssl = [this](const std::string& command) {
            return run({"/bin/sh", "-c", "cd " + tree_.path() + " && " + command}, tree_.at("openssl.log"));
        };
        ok_ = openssl("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=nr-test-ca "
                      "-addext keyUsage=critical,keyCertSign,cRLSign -keyout ca.key -out ca.pem") == 0 &&
              openssl("openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout up.key -out up.csr") == 0 &&
              // The extensions a strict verifier wants (Python 3.13, Debian 13's,
              // verifies with VERIFY_X509_STRICT by default).
              openssl("printf 'subjectAltName=DNS:localhost\\nbasicConstraints=critical,CA:FALSE\\n"
                      "keyUsage=critical,digitalSignature,keyEncipherment\\nextendedKeyUsage=serverAuth\\n"
                      "subjectKeyIdentifier=hash\\nauthorityKeyIdentifier=keyid,issuer\\n' > up.ext && "
                      "openssl x509 -req -in up.csr -CA ca.pem "
                      "-CAkey ca.key -CAcreateserial -days 2 -extfile up.ext -out up.pem") == 0;
        if (!ok_) {
            why_ = "openssl could not make the test CA: " + tree_.read("openssl.log");
            return;
        }
        tree_.dir("creds", 0700);
        tree_.file("creds/test-key", kRealKey + "\n", 0600);
        upstream_ = spawn({"python3", NR_GATEWAY_UPSTREAM, tree_.at("up.pem"), tree_.at("up.key"), tree_.at("port"),
                           tree_.at("upstream.jsonl"), tree_.path()},
                          tree_.at("upstream.log"));
        gateway_ = spawn({NR_GATEWAY_BINARY, "--control", tree_.at("control"), "--credentials", tree_.at("creds"),
                          "--upstream-ca", tree_.at("ca.pem")},
                         tree_.at("gateway.log"));
        if (!wait_for_file(tree_.at("port")) || !wait_for_control_socket(tree_.at("control"))) {
            ok_ = false;
            why_ = "upstream or gateway did not start: " + tree_.read("upstream.log") + tree_.read("gateway.log");
            return;
        }
        upstream_port_ = static_cast<std::uint16_t>(std::stoi(tree_.read("port")));
    }
    ~Environment()
    {
        for (const pid_t pid : {gateway_, upstream_}) {
            if (pid > 0) {
                kill(pid, SIGTERM);
                waitpid(pid, nullptr, 0);
            }
        }
    }
    Environment(const Environment&) = delete;
    Environment& operator=(const Environment&) = delete;

    [[nodiscard]] bool ok() const { return ok_; }
    [[nodiscard]] const std::string& why() const { return why_; }
    [[nodiscard]] const nr::test::TempTree& tree() const { return tree_; }
    [[nodiscard]] std::string upstream_host() const { return "localhost:" + std::to_string(upstream_port_); }
    [[nodiscard]] std::uint16_t upstream_port() const { return upstream_port_; }
    [[nodiscard]] bool gateway_alive() const { return gateway_ > 0 && waitpid(gateway_, nullptr, WNOHANG) == 0; }
    [[nodiscard]] pid_t gateway_pid() const { return gateway_; }

    // The upstream's records of requests carrying this X-Test-Id.
    [[nodiscard]] std::vector<nlohmann::json> seen(const std::string& test_id) const
    {
        std::vector<nlohmann::json> out;
        std::ifstream in(tree_.at("upstream.jsonl"));
        std::string line;
        while (std::getline(in, line)) {
            auto entry = nlohmann::json::parse(line);
            if (entry["headers"].value("x-test-id", "") == test_id) {
                out.push_back(std::move(entry));
            }
        }
        return out;
    }

private:
    nr::test::TempTree tree_;
    bool ok_ = true;
    std::string why_;
    pid_t upstream_ = -1;
    pid_t gateway_ = -1;
    std::uint16_t upstream_port_ = 0;
};

inline Environment& environment()
{
    static Environment env;
    return env;
}

struct Listener {
    UniqueFd fd;
    std::uint16_t port = 0;
};

inline Listener make_listener()
{
    Listener out;
    out.fd = UniqueFd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof address;
    EXPECT_EQ(bind(out.fd.get(), reinterpret_cast<sockaddr*>(&address), len), 0);
    EXPECT_EQ(listen(out.fd.get(), 16), 0);
    EXPECT_EQ(getsockname(out.fd.get(), reinterpret_cast<sockaddr*>(&address), &len), 0);
    out.port = ntohs(address.sin_port);
    return out;
}

// One control datagram to the gateway listening on `path`, with `fd`
// attached when >= 0; the gateway's reply.
inline std::string control_at(const std::string& path, const std::string& message, int fd)
{
    const UniqueFd sock(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    if (connect(sock.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        return std::string("connect: ") + std::strerror(errno);
    }
    iovec iov{const_cast<char*>(message.data()), message.size()};
    alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int))> buffer{};
    msghdr header{};
    header.msg_iov = &iov;
    header.msg_iovlen = 1;
    if (fd >= 0) {
        header.msg_control = buffer.data();
        header.msg_controllen = buffer.size();
        auto* c = CMSG_FIRSTHDR(&header);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    if (sendmsg(sock.get(), &header, MSG_NOSIGNAL) < 0) {
        return std::string("sendmsg: ") + std::strerror(errno);
    }
    std::array<char, 1024> reply{};
    const auto n = recv(sock.get(), reply.data(), reply.size(), 0);
    return n > 0 ? std::string(reply.data(), static_cast<std::size_t>(n)) : "no reply";
}

inline std::string control(const std::string& message, int fd)
{
    return control_at(environment().tree().at("control"), message, fd);
}

inline nr::core::GatewaySession session(const std::string& unit, char token, bool provider, bool loopback_allowed)
{
    nr::core::GatewaySession s;
    s.unit = unit;
    s.owner = "alice";
    s.chat = unit.substr(0, unit.find('.'));
    s.adapter = "codex";
    s.token = token_of(token);
    const auto host = environment().upstream_host();
    s.egress.allow_hosts = {host};
    if (provider) {
        nr::core::ProviderRoute route;
        route.host = host;
        route.credential = "test-key";
        route.key_env = "OPENAI_API_KEY";
        route.base_url_env = "OPENAI_BASE_URL";
        s.egress.providers = {route};
    }
    if (loopback_allowed) {
        s.egress.allow_addresses = {nr::core::parse_ip_prefix("127.0.0.0/8")};
    }
    s.max_header_bytes = 16U << 10U;
    s.max_request_bytes = 4096;
    s.max_response_bytes = 1U << 20U;
    return s;
}

// Registers `s` on a fresh listener, keeps no copy of it (as the launcher
// does), and answers the listener's port, or 0.
inline std::uint16_t register_session(const nr::core::GatewaySession& s)
{
    auto listener = make_listener();
    const auto reply = control(nr::core::encode_gateway_register(s), listener.fd.get());
    EXPECT_EQ(reply, "ok\n") << s.unit;
    return reply == "ok\n" ? listener.port : 0;
}

inline UniqueFd connect_to(std::uint16_t port)
{
    UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    if (connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        return UniqueFd();
    }
    timeval timeout{10, 0};
    setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    return fd;
}

inline void send_all(int fd, const std::string& data)
{
    std::size_t sent = 0;
    while (sent < data.size()) {
        const auto n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) {
            return;
        }
        sent += static_cast<std::size_t>(n);
    }
}

inline std::string read_to_end(int fd)
{
    std::string out;
    std::array<char, 4096> buffer{};
    for (;;) {
        const auto n = recv(fd, buffer.data(), buffer.size(), 0);
        if (n <= 0) {
            return out;
        }
        out.append(buffer.data(), static_cast<std::size_t>(n));
    }
}

// One request on its own connection, "Connection: close"; the whole answer.
inline std::string round_trip(std::uint16_t port, const std::string& request)
{
    const auto fd = connect_to(port);
    if (!fd.valid()) {
        return "connect failed";
    }
    send_all(fd.get(), request);
    return read_to_end(fd.get());
}

// One answer with a Content-Length from a connection that stays open.
inline std::string read_one_response(int fd)
{
    std::string out;
    std::array<char, 4096> buffer{};
    for (;;) {
        const auto head_end = out.find("\r\n\r\n");
        if (head_end != std::string::npos) {
            const auto at = out.find("Content-Length: ");
            const auto length = at == std::string::npos ? 0 : std::stoul(out.substr(at + 16));
            if (out.size() >= head_end + 4 + length) {
                return out;
            }
        }
        const auto n = recv(fd, buffer.data(), buffer.size(), 0);
        if (n <= 0) {
            return out;
        }
        out.append(buffer.data(), static_cast<std::size_t>(n));
    }
}

// What the peer sent on `fd` within `wait`, with "<closed>" appended once
// it closed (end of stream or reset); "" when it stayed silent.
inline std::string answer_within(int fd, std::chrono::milliseconds wait)
{
    std::string out;
    std::array<char, 4096> buffer{};
    const auto until = std::chrono::steady_clock::now() + wait;
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
        pollfd entry{fd, POLLIN, 0};
        if (left.count() <= 0 || poll(&entry, 1, static_cast<int>(left.count())) <= 0) {
            return out;
        }
        const auto n = recv(fd, buffer.data(), buffer.size(), MSG_DONTWAIT);
        if (n < 0 && errno == EAGAIN) {
            continue;
        }
        if (n <= 0) {
            return out + "<closed>";
        }
        out.append(buffer.data(), static_cast<std::size_t>(n));
    }
}

// Polls `probe` every 20 ms until it holds, for at most `limit`; whether it
// did. A bounded wait for a state change that a loaded machine may delay,
// not a measure of speed.
template <typename Probe> bool eventually(std::chrono::seconds limit, Probe probe)
{
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!probe()) {
        if (std::chrono::steady_clock::now() >= until) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

// How many connections wait in the accept queue of the IPv4 listener on
// 127.0.0.1:`port` (for a listening socket, /proc/net/tcp's rx_queue is
// that queue); none when there is no such listener.
inline std::optional<std::size_t> accept_queue(std::uint16_t port)
{
    std::ifstream table("/proc/net/tcp");
    std::string line;
    std::getline(table, line); // the header
    char wanted[16];
    std::snprintf(wanted, sizeof wanted, "0100007F:%04X", port);
    while (std::getline(table, line)) {
        std::istringstream fields(line);
        std::string slot, local, remote, state, queues;
        fields >> slot >> local >> remote >> state >> queues;
        if (local == wanted && state == "0A") { // TCP_LISTEN
            return std::stoul(queues.substr(queues.find(':') + 1), nullptr, 16);
        }
    }
    return std::nullopt;
}

// A GET that keeps the connection open for the next one.
inline std::string kept_get(const std::string& target, const std::string& test_id, const std::string& authorization)
{
    return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test-Id: " + test_id +
           "\r\nAuthorization: " + authorization + "\r\n\r\n";
}

inline std::string get(const std::string& target, const std::string& test_id, const std::string& authorization)
{
    std::string request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test-Id: " + test_id + "\r\n";
    if (!authorization.empty()) {
        request += "Authorization: " + authorization + "\r\n";
    }
    return request + "Connection: close\r\n\r\n";
}

inline std::string status_line(const std::string& response)
{
    return response.substr(0, response.find("\r\n"));
}

inline std::string body_of(const std::string& response)
{
    const auto end = response.find("\r\n\r\n");
    return end == std::string::npos ? "" : response.substr(end + 4);
}

class GatewayTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (geteuid() != 0) {
            GTEST_SKIP() << "the gateway accepts control peers of uid 0 only";
        }
        ASSERT_TRUE(environment().ok()) << environment().why();
        ASSERT_TRUE(environment().gateway_alive()) << environment().tree().read("gateway.log");
    }

    static std::string provider_path(const std::string& rest)
    {
        // Appended piece by piece: GCC 12 at -O3 warns falsely (-Wrestrict) on "/" + host + rest.
        std::string path = "/";
        path += environment().upstream_host();
        path += rest;
        return path;
    }

    // A provider session that may reach the upstream on loopback.
    std::uint16_t provider_session(const std::string& unit, char token)
    {
        return register_session(session(unit, token, true, true));
    }
};

// A gateway of one test's own, started under RLIMIT_NOFILE `descriptors`
// with the shared environment's credentials and upstream CA, and stopped
// with the test.
class OwnGatewayTest : public GatewayTest {
protected:
    explicit OwnGatewayTest(int descriptors) : descriptors_(descriptors) {}

    void SetUp() override
    {
        GatewayTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) {
            return;
        }
        const auto& shared = environment().tree();
        gateway_ =
            spawn({"prlimit", "--nofile=" + std::to_string(descriptors_), "--", NR_GATEWAY_BINARY, "--control",
                   own_.at("control"), "--credentials", shared.at("creds"), "--upstream-ca", shared.at("ca.pem")},
                  own_.at("gateway.log"));
        ASSERT_TRUE(wait_for_control_socket(own_.at("control"))) << own_.read("gateway.log");
    }
    void TearDown() override
    {
        if (gateway_ > 0) {
            kill(gateway_, SIGTERM);
            waitpid(gateway_, nullptr, 0);
        }
    }

    // Registers `s` with this gateway on a fresh listener; its port, or 0.
    std::uint16_t register_here(const nr::core::GatewaySession& s)
    {
        auto listener = make_listener();
        const auto reply = control_at(own_.at("control"), nr::core::encode_gateway_register(s), listener.fd.get());
        EXPECT_EQ(reply, "ok\n") << s.unit;
        return reply == "ok\n" ? listener.port : 0;
    }

    // The CPU time (user + system, in clock ticks) the gateway has used.
    [[nodiscard]] long cpu_ticks() const
    {
        std::ifstream in("/proc/" + std::to_string(gateway_) + "/stat");
        const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::istringstream fields(stat.substr(stat.rfind(')') + 2));
        std::string field;
        // State is field 3; utime and stime are fields 14 and 15.
        for (int i = 3; i < 14; ++i) {
            fields >> field;
        }
        long user = 0;
        long system = 0;
        fields >> user >> system;
        return user + system;
    }

    nr::test::TempTree own_;
    pid_t gateway_ = -1;

private:
    int descriptors_;
};

} // namespace nr::test::gateway
