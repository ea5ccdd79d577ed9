// SPDX-License-Identifier: Apache-2.0
#include "gateway_fixture.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>

namespace nr::itest {

namespace {

constexpr const char* kDropInDir = "/run/systemd/system/native-runtime-gateway.service.d";
constexpr const char* kDropIn = "/run/systemd/system/native-runtime-gateway.service.d/50-test-upstream.conf";
constexpr const char* kGatewayPath = "/usr/libexec/native-runtime/native-runtime-gateway";
constexpr const char* kKeyStore = "/etc/native-runtime/gateway-credentials";
// tests/integration/config.yaml's gateway adapters name it.
constexpr const char* kCredential = "nr-test-openai";

void must(const std::vector<std::string>& argv)
{
    const auto outcome = run(argv);
    if (outcome.status != 0) {
        throw std::runtime_error(argv.front() + " failed: " + outcome.err);
    }
}

// The operator's way (docs/configuration.md): one file per provider key
// in the root-only store, encrypted with the host's key; the gateway's
// unit alone gets it decrypted, as credential provider_<file name>.
void install_real_key(const std::string& key)
{
    const std::string path = std::string(kKeyStore) + "/" + kCredential;
    // Through the environment, so that no command line holds the key.
    const auto outcome = run({"sh", "-c",
                              "printf %s \"$NR_REAL_KEY\" | systemd-creds encrypt --with-key=host "
                              "--name=\"$1\" - \"$2\"",
                              "sh", std::string("provider_") + kCredential, path},
                             with_env({"NR_REAL_KEY=" + key}));
    if (outcome.status != 0) {
        throw std::runtime_error("systemd-creds encrypt failed: " + outcome.err);
    }
}

void remove_real_key()
{
    std::filesystem::remove(std::string(kKeyStore) + "/" + kCredential);
}

// The upstream's CA, trusted by the gateway only, and the names only the
// gateway resolves.
std::string gateway_test_dropin(const std::string& dir)
{
    return "[Service]\nBindReadOnlyPaths=" + dir + "/hosts:/etc/hosts\nExecStart=\nExecStart=" + kGatewayPath +
           " --credential-prefix provider_ --upstream-ca " + dir + "/ca.pem\n";
}

} // namespace

namespace {

constexpr const char* kStrictLeafExtensions = "basicConstraints=critical,CA:FALSE\n"
                                              "keyUsage=critical,digitalSignature,keyEncipherment\n"
                                              "extendedKeyUsage=serverAuth\n"
                                              "subjectKeyIdentifier=hash\n"
                                              "authorityKeyIdentifier=keyid,issuer\n";

} // namespace

void GatewayFixture::SetUpTestSuite()
{
    std::filesystem::create_directories(kGatewayTestDir);
    const std::string dir = kGatewayTestDir;
    const std::vector<std::string> ec{"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"};
    auto ca = std::vector<std::string>{"openssl",
                                       "req",
                                       "-x509",
                                       "-days",
                                       "2",
                                       "-subj",
                                       "/CN=nr-gateway-test-ca",
                                       "-addext",
                                       "keyUsage=critical,keyCertSign,cRLSign",
                                       "-keyout",
                                       dir + "/ca.key",
                                       "-out",
                                       dir + "/ca.pem"};
    ca.insert(ca.begin() + 2, ec.begin(), ec.end());
    must(ca);
    auto csr = std::vector<std::string>{"openssl", "req",
                                        "-subj",   std::string("/CN=") + kUpstreamName,
                                        "-keyout", dir + "/upstream.key",
                                        "-out",    dir + "/upstream.csr"};
    csr.insert(csr.begin() + 2, ec.begin(), ec.end());
    must(csr);
    // The extensions a strict verifier wants of a server certificate
    // (Python 3.13's default context, Debian 13's, sets VERIFY_X509_STRICT).
    write_file(dir + "/san.ext", std::string("subjectAltName=DNS:") + kUpstreamName + ",DNS:" + kTunnelName + "\n" +
                                     kStrictLeafExtensions);
    must({"openssl", "x509", "-req", "-days", "2", "-in", dir + "/upstream.csr", "-CA", dir + "/ca.pem", "-CAkey",
          dir + "/ca.key", "-CAcreateserial", "-extfile", dir + "/san.ext", "-out", dir + "/upstream.pem"});
    // Only the gateway's unit resolves the upstream's names.
    // metadata.nr-test: the address the gateway's unit denies
    // (gateway_unit_test.cpp).
    write_file(dir + "/hosts",
               std::string("127.0.0.1 ") + kUpstreamName + " " + kTunnelName + "\n169.254.169.254 metadata.nr-test\n");
    std::filesystem::permissions(dir + "/upstream.key", std::filesystem::perms::owner_read);

    real_key_ = "sk-real-" + random_hex(24);
    install_real_key(real_key_);
    std::filesystem::create_directories(kDropInDir);
    write_file(kDropIn, gateway_test_dropin(dir));
    must({"systemctl", "daemon-reload"});
    (void)run({"systemctl", "stop", kGatewayUnit});
}

void GatewayFixture::TearDownTestSuite()
{
    (void)run({"systemctl", "stop", kGatewayUnit});
    // Only its own: the sanitizer run keeps a drop-in of its own there.
    std::filesystem::remove(kDropIn);
    remove_real_key();
    (void)run({"systemctl", "daemon-reload"});
    std::filesystem::remove_all(kGatewayTestDir);
}

EndpointListen GatewayFixture::upstream_listen()
{
    const std::string dir = kGatewayTestDir;
    return EndpointListen{"127.0.0.1", kUpstreamPort, dir + "/upstream.pem", dir + "/upstream.key"};
}

std::unique_ptr<ModelEndpoint> GatewayFixture::upstream()
{
    return std::make_unique<ModelEndpoint>("openai", real_key_, upstream_listen());
}

std::string random_hex(std::size_t bytes)
{
    std::random_device device;
    std::string out;
    for (std::size_t i = 0; i < bytes; ++i) {
        static constexpr const char* kDigits = "0123456789abcdef";
        const auto value = device() & 0xffU;
        out += kDigits[value >> 4U];
        out += kDigits[value & 0xfU];
    }
    return out;
}

std::vector<std::string> session_pids(const std::string& unit)
{
    std::vector<std::string> pids{unit_property(unit, "MainPID")};
    if (pids.front().empty() || pids.front() == "0") {
        return {};
    }
    for (std::size_t i = 0; i < pids.size() && pids.size() < 64; ++i) {
        std::error_code error;
        for (const auto& task : std::filesystem::directory_iterator("/proc/" + pids[i] + "/task", error)) {
            std::ifstream children(task.path() / "children");
            std::string child;
            while (children >> child) {
                pids.push_back(child);
            }
        }
    }
    return pids;
}

std::string session_env(const std::string& unit, const std::string& name)
{
    for (const auto& pid : session_pids(unit)) {
        std::ifstream environ("/proc/" + pid + "/environ");
        std::string entry;
        while (std::getline(environ, entry, '\0')) {
            if (entry.starts_with(name + "=")) {
                return entry.substr(name.size() + 1);
            }
        }
    }
    return "";
}

std::string process_tree(const std::string& unit)
{
    std::string out =
        "MainPID=" + unit_property(unit, "MainPID") + " ActiveState=" + unit_property(unit, "ActiveState") + ":";
    for (const auto& pid : session_pids(unit)) {
        std::ifstream comm("/proc/" + pid + "/comm");
        std::string name;
        std::getline(comm, name);
        std::ifstream environ("/proc/" + pid + "/environ");
        out += " " + pid + "(" + name + (environ.good() ? "" : ",environ unreadable") + ")";
    }
    return out;
}

std::vector<std::string> owners_client_session(const std::string& owner, const std::string& chat,
                                               const std::vector<std::string>& args)
{
    std::vector<std::string> command{kGatewayClient};
    command.insert(command.end(), args.begin(), args.end());
    return as_user(kWorker, ctl_run(owner, chat, "gateway-client", command));
}

std::vector<std::string> client_session(const std::string& chat, const std::vector<std::string>& args)
{
    return owners_client_session("alice", chat, args);
}

nlohmann::json status_json(const std::string& owner, const std::string& chat)
{
    const auto outcome = run({kCtl, "status", "--owner", owner, "--chat", chat, "--json"});
    return outcome.status == 0 ? nlohmann::json::parse(outcome.out, nullptr, false) : nlohmann::json();
}

std::uint64_t gateway_count(const nlohmann::json& status, const char* whose, const char* what)
{
    if (!status.is_object() || !status.contains("gateway") || !status["gateway"].is_object()) {
        return 0;
    }
    return status["gateway"][whose][what].get<std::uint64_t>();
}

std::string gateway_main_pid()
{
    return unit_property(kGatewayUnit, "MainPID");
}

std::string gateway_records(const std::string& unit, const std::string& pid)
{
    return run({"journalctl", "-b", "-q", "-o", "verbose", "--no-pager", "-u", kGatewayUnit, "_PID=" + pid,
                "NATIVE_RUNTIME_UNIT=" + unit})
        .out;
}

std::string gateway_messages(const std::string& pid)
{
    return run({"journalctl", "-b", "-q", "-o", "cat", "--no-pager", "-u", kGatewayUnit, "_PID=" + pid}).out;
}

} // namespace nr::itest
